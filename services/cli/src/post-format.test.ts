import { readFileSync } from "node:fs";
import { join } from "node:path";
import { postSchema } from "@earshot/platform/core";
import { runCli } from "./commands";
import { EXAMPLE_LINES, POST_FIELDS } from "./post-format";

// The import's line format is documented twice, in `--help` and in the README; both are held to the
// mention service's post check, so neither can leave a field out or drift from what the check takes.

const fieldsOf = (shape: Record<string, unknown>, prefix = ""): string[] =>
  Object.entries(shape).flatMap(([key, schema]) => {
    const path = `${prefix}${key}`;
    // Unwrap optional/default wrappers to find the nested objects (author, metrics).
    let inner = schema as { def?: { innerType?: unknown; shape?: Record<string, unknown> }; shape?: Record<string, unknown> };
    while (inner.def?.innerType) inner = inner.def.innerType as typeof inner;
    return inner.shape ? [path, ...fieldsOf(inner.shape, `${path}.`)] : [path];
  });

const readme = readFileSync(join(__dirname, "..", "README.md"), "utf8");

describe("the posts import line format", () => {
  it("documents every field the post check knows, and no other", () => {
    expect(POST_FIELDS.map((f) => f.path).sort()).toEqual(fieldsOf(postSchema.shape).sort());
  });

  it("shows the fields and an example line per source in `posts import --help`", async () => {
    const out: string[] = [];
    expect(await runCli(["posts", "import", "--help"], {}, { out: (l) => out.push(l), err: () => undefined })).toBe(0);
    const help = out.join("\n");
    for (const f of POST_FIELDS) expect(help).toMatch(new RegExp(`^  ${f.path.replace(".", "\\.")} +${f.required ? "required" : ""}`, "m"));
    for (const line of EXAMPLE_LINES) expect(help).toContain(line);
  });

  it("is in the README: a row per field saying whether it is required, and the example lines", () => {
    for (const f of POST_FIELDS) expect(readme).toMatch(new RegExp(`^\\| \`${f.path.replace(".", "\\.")}\` \\| ${f.required ? "yes" : "no"} \\|`, "m"));
    for (const line of EXAMPLE_LINES) expect(readme).toContain(line);
    expect(EXAMPLE_LINES.map((l) => (JSON.parse(l) as { source: string }).source)).toEqual(["x", "reddit", "youtube", "linkedin"]);
  });
});
