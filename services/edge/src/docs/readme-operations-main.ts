import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { OPERATIONS } from "../catalog";
import { withOperationsTable } from "./readme-operations";

// `npm run sync-readme`: rewrites the list of operations in the repository's README.md from the catalog.

const readmePath = resolve(__dirname, "../../../../README.md");

const main = async () => {
  const current = await readFile(readmePath, "utf8");
  const next = withOperationsTable(current, OPERATIONS);
  if (next === current) return;
  await writeFile(readmePath, next);
  process.stdout.write("wrote README.md (operations)\n");
};

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
