import { readFileSync } from "node:fs";
import path from "node:path";
import yaml from "js-yaml";
import { camelName, deployables } from "@earshot/registry";

// The chart README's "Values" table lists every value of values.yaml (derived from the registry, so a new
// service's setting or a new chart option lands there first): a value is listed when the table names it or
// a block holding it (`<deployable>.resources` covers its requests and limits).

const chart = path.resolve(__dirname, "..", "charts", "earshot");
const values = yaml.load(readFileSync(path.join(chart, "values.yaml"), "utf8")) as Record<string, unknown>;
const readme = readFileSync(path.join(chart, "README.md"), "utf8");

/** Every value's path, a deployable's block as `<deployable>`; maps and lists left empty count as one value. */
const valuePaths = (node: unknown, prefix: string): string[] => {
  if (node === null || typeof node !== "object" || Array.isArray(node) || Object.keys(node).length === 0) return [prefix];
  const deployableKeys = new Set(deployables().map((d) => camelName(d.name)));
  return Object.entries(node).flatMap(([key, child]) => valuePaths(child, prefix ? `${prefix}.${key}` : deployableKeys.has(key) ? "<deployable>" : key));
};

/** The names in the first column of the Values table: `a.b`, then `.c` for a sibling, `x.{y,z}` for several. */
const listedNames = (text: string): Set<string> => {
  const section = text.slice(text.indexOf("## Values"));
  const table = section.slice(0, section.indexOf("\n## ", 3));
  const names = new Set<string>();
  for (const row of table.split("\n").filter((l) => l.startsWith("| `"))) {
    let previous = "";
    for (const [, code] of row.split("|")[1]!.matchAll(/`([^`]+)`/g)) {
      const full = code!.startsWith(".") ? `${previous.slice(0, previous.lastIndexOf("."))}${code}` : code!;
      previous = full;
      const brace = /^(.*)\{([^}]+)\}(.*)$/.exec(full);
      for (const name of brace ? brace[2]!.split(",").map((b) => `${brace[1]}${b.trim()}${brace[3]}`) : [full]) names.add(name);
    }
  }
  return names;
};

describe("charts/earshot/README.md", () => {
  it("lists every value of values.yaml in its Values table", () => {
    const listed = listedNames(readme);
    const covered = (p: string) => p.split(".").some((_, i, parts) => listed.has(parts.slice(0, i + 1).join(".")));
    const unique = [...new Set(valuePaths(values, ""))];
    expect(unique.length).toBeGreaterThan(40);
    expect(unique.filter((p) => !covered(p))).toEqual([]);
  });

  it("lists no value that values.yaml does not have", () => {
    const paths = new Set(valuePaths(values, ""));
    const exists = (name: string) => [...paths].some((p) => p === name || p.startsWith(`${name}.`));
    expect([...listedNames(readme)].filter((n) => !exists(n))).toEqual([]);
  });
});
