import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

// The READMEs stand alone for their readers, so a file they name must exist: every path in backticks that
// starts with a source folder (`src/…`, `test/…`, `services/…`, `deploy/…`, `charts/…`, `bench/…`,
// `proto/…`) resolves from the repository's root or from the README's own folder. A file renamed or
// removed without its README fails here, naming the README and the path. Placeholders (`src/x.ts`, a
// `<name>`) are not paths; the root README's layout of a new service names files every service has.

const root = resolve(__dirname, "..", "..", "..", "..");
const PATH = /`((?:src|test|services|deploy|charts|bench|proto)\/[A-Za-z0-9_./-]+)`/g;
const PLACEHOLDERS = new Set(["src/x.ts"]);

const readmes = (): string[] => [
  "README.md",
  "bench/README.md",
  "charts/earshot/README.md",
  ...readdirSync(join(root, "services")).map((d) => `services/${d}/README.md`),
].filter((f) => existsSync(join(root, f)));

const serviceDirs = readdirSync(join(root, "services")).map((d) => join(root, "services", d));

/** Where a named path may live: the root, the README's folder, or (the root README's new-service layout) some service. */
const exists = (readme: string, path: string): boolean =>
  existsSync(join(root, path)) || existsSync(join(root, dirname(readme), path)) || (readme === "README.md" && serviceDirs.some((d) => existsSync(join(d, path))));

describe("the READMEs", () => {
  it("name only files that exist", () => {
    const missing: string[] = [];
    for (const readme of readmes()) {
      for (const match of readFileSync(join(root, readme), "utf8").matchAll(PATH)) {
        const path = (match[1] as string).replace(/[.,:;]+$/, "");
        if (!PLACEHOLDERS.has(path) && !exists(readme, path)) missing.push(`${readme}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
