import { EXPORT_FORMATS } from "@earshot/mention/fields";
import { toFiltersMessage } from "@earshot/mention/filters";
import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { type Mention, mentionSchema, presentMention } from "../mentions/resource";
import { defineOperation, type HandlerContext } from "../operation";
import { FILTERS_DOC, listQuerySchema, mentionFilterQuery } from "../shared/mention-filters";
import { projectId } from "../shared/schemas";
import { collapseQuery } from "../shared/story-collapse";
import { type ExportNames, loadExportNames } from "./export-names";
import { mentionCsvHeader, mentionCsvRecord, mentionJsonLine, MENTION_CSV_COLUMNS } from "./mention-rows";

/** Mentions asked of the service per call: one page is all the export holds at a time. */
export const EXPORT_PAGE_SIZE = 1000;

type Format = (typeof EXPORT_FORMATS)[number];

const FORMATS = {
  ndjson: {
    mediaType: "application/x-ndjson",
    extension: "ndjson",
    lines: true,
    description: "Newline-delimited JSON: one Mention per line, as list_mentions returns it.",
  },
  csv: {
    mediaType: "text/csv",
    extension: "csv",
    description:
      `RFC 4180 CSV (UTF-8, CRLF), a header row then one row per mention, columns ${MENTION_CSV_COLUMNS.join(", ")} (each id column with the names beside it; ` +
      "keyword and group ids and names ;-separated, names in the order of the ids; empty for null and for a group or category deleted since). " +
      "A cell beginning with = + - @, a tab or CR gets a leading ' so that spreadsheets show it as text instead of running it as a formula (a YouTube handle @name reads '@name); " +
      "the NDJSON export has the raw values.",
  },
} satisfies Record<Format, unknown>;

/** Only characters that need no quoting in a header's quoted-string. */
const safeFileName = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_");

/** The pages of an export, each fetched only when the previous one has been taken. */
async function* exportPages(ctx: HandlerContext, request: Omit<mentionV1.ExportMentionsRequest, "cursor">, first: mentionV1.ExportMentionsResponse) {
  let page = first;
  for (;;) {
    yield page.mentions;
    if (!page.nextCursor) return;
    page = await ctx.backends.mention.exportMentions({ ...request, cursor: page.nextCursor });
  }
}

/** NDJSON lines as they are; CSV rows with the names of their ids. */
type Encoding = { format: "ndjson" } | { format: "csv"; names: ExportNames };

async function* encode(pages: AsyncIterable<mentionV1.Mention[]>, encoding: Encoding) {
  if (encoding.format === "csv") yield mentionCsvHeader();
  const row = encoding.format === "csv" ? (m: Mention) => mentionCsvRecord(m, encoding.names) : mentionJsonLine;
  for await (const mentions of pages) {
    if (mentions.length > 0) yield mentions.map((m) => row(presentMention(m))).join("");
  }
}

export const mentionExportOperations = [
  defineOperation({
    name: "export_mentions",
    title: "Export mentions",
    description:
      "Streams every mention of a project that matches the filters, newest published first, as a file download: no cap and no paging, as of the moment the export began " +
      "(mentions arriving meanwhile are left out; triage changes may show). format ndjson (default) or csv, or without format the Accept header " +
      "(application/x-ndjson or text/csv; anything else is 406). An error before the first byte is a problem document; one after it breaks the connection " +
      `without ending the chunked body, which HTTP clients report as an error, so a cut-off file never passes for a whole one. ${FILTERS_DOC} REST only (not an MCP tool).`,
    method: "GET",
    path: "/mentions/export",
    scope: "mentions:read",
    tag: "Mentions",
    output: mentionSchema,
    restOnly: true,
    download: { formats: FORMATS },
    input: {
      query: listQuerySchema({
        projectId,
        ...mentionFilterQuery,
        collapse: collapseQuery,
        format: z.enum(EXPORT_FORMATS).optional().describe("ndjson or csv; without it the Accept header decides, ndjson when it accepts anything."),
      }),
    },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const format = (ctx.format ?? "ndjson") as Format;
      const request = { projectId: input.projectId, filters: toFiltersMessage(input), viewId: input.viewId, limit: EXPORT_PAGE_SIZE, collapse: input.collapse };
      // The first page (and, for CSV, the names) is read before anything is written, so a missing project
      // or a bad viewId is still an ordinary problem response.
      const first = await ctx.backends.mention.exportMentions({ ...request, cursor: "" });
      const encoding: Encoding = format === "csv" ? { format, names: await loadExportNames(ctx, input.projectId) } : { format };
      return {
        stream: {
          filename: `mentions-${safeFileName(input.projectId)}.${FORMATS[format].extension}`,
          chunks: encode(exportPages(ctx, request, first), encoding),
        },
      };
    },
  }),
];
