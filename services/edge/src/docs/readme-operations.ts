import { isTool, type Operation, openApiPath } from "../catalog/operation";

// The README's list of operations, written from the catalog so that it names every operation there is:
// `npm run sync-readme` rewrites the part of README.md between the markers, and a test fails while the
// README and the catalog disagree. Nothing here needs a running server.

export const BEGIN_MARKER = "<!-- operations:begin (written by `npm run sync-readme` from the edge catalog; do not edit by hand) -->";
export const END_MARKER = "<!-- operations:end -->";

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** One row per operation, grouped by resource as the catalog lists them. */
export const operationsTable = (operations: readonly Operation[]): string => {
  const rows = operations.map((op, i) => {
    const resource = i === 0 || operations[i - 1]!.tag !== op.tag ? op.tag : "";
    const rest = `\`${op.method} /api/v1${openApiPath(op.path)}\``;
    const tool = isTool(op) ? `\`${op.name}\`` : `\`${op.name}\` (REST only)`;
    return `| ${cell(resource)} | ${tool} | ${rest} | \`${op.scope}\` | ${cell(op.title)} |`;
  });
  return ["| Resource | Operation (MCP tool) | REST | Scope | What it does |", "| --- | --- | --- | --- | --- |", ...rows].join("\n");
};

/** `readme` with the text between the markers replaced by the table of `operations`. */
export const withOperationsTable = (readme: string, operations: readonly Operation[]): string => {
  const begin = readme.indexOf(BEGIN_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`README.md has no operations block: put ${BEGIN_MARKER} and ${END_MARKER} where the table goes`);
  return `${readme.slice(0, begin + BEGIN_MARKER.length)}\n${operationsTable(operations)}\n${readme.slice(end)}`;
};
