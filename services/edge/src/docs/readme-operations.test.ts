import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { OPERATIONS } from "../catalog";
import type { Operation } from "../catalog/operation";
import { BEGIN_MARKER, END_MARKER, operationsTable, withOperationsTable } from "./readme-operations";

// The README's list of operations is the catalog's: this fails when an operation is added, renamed or
// removed without `npm run sync-readme`.

const readme = readFileSync(resolve(__dirname, "../../../../README.md"), "utf8");

describe("the README's list of operations", () => {
  it("is the one the catalog writes (run `npm run sync-readme` when this fails)", () => {
    expect(readme).toContain(BEGIN_MARKER);
    expect(withOperationsTable(readme, OPERATIONS)).toBe(readme);
  });

  it("names every operation once, source health and the LinkedIn ones included", () => {
    const block = readme.slice(readme.indexOf(BEGIN_MARKER), readme.indexOf(END_MARKER));
    for (const op of OPERATIONS) expect(block.split(`\`${op.name}\``)).toHaveLength(2);
    for (const name of ["get_source_health", "get_linkedin_connect_url", "select_linkedin_page", "sync_linkedin", "disconnect_linkedin"]) expect(block).toContain(`\`${name}\``);
  });

  it("writes a row per operation with its REST route and scope, naming the resource once per group", () => {
    const op = (name: string, tag: string, extra: Partial<Operation> = {}) => ({ name, tag, title: `Do ${name}`, method: "GET", path: "/things/:thingId", scope: "things:read", ...extra }) as Operation;
    expect(operationsTable([op("get_thing", "Things"), op("export_things", "Things", { restOnly: true }), op("get_other", "Others | more")]).split("\n").slice(2)).toEqual([
      "| Things | `get_thing` | `GET /api/v1/things/{thingId}` | `things:read` | Do get_thing |",
      "|  | `export_things` (REST only) | `GET /api/v1/things/{thingId}` | `things:read` | Do export_things |",
      "| Others \\| more | `get_other` | `GET /api/v1/things/{thingId}` | `things:read` | Do get_other |",
    ]);
  });

  it("refuses a README without the markers rather than losing the table", () => {
    expect(() => withOperationsTable("# Earshot\n", OPERATIONS)).toThrow(/no operations block/);
  });
});
