import { type IdPrefix, idKindsText, idPattern, idPatternBody, patternRule, textField } from "@earshot/platform";
import { z } from "zod";

// Fields of the API itself (ids, paging), shared by every resource that takes them. The fields of resources
// come from the owning service's field module (`@earshot/project/fields`, `@earshot/account/fields`), which
// the service checks with too.

/**
 * An id field: the id of one of these kinds (`kw_` and a ULID), or else 400 naming the field and the kind
 * ("must be a keyword id (kw_…)"). Every id an operation takes, in its path, query or body, is one, so a
 * name or a typo in an id's place (`keywordId=Acme`) is refused instead of matching nothing; a well-shaped
 * id that names nothing the caller may see is still the owning service's 404. The pattern is published,
 * so OpenAPI and the MCP tools state the shape. `orWord` is a word the field takes beside the ids
 * (list_mentions' `categoryId=none`).
 */
export const idField = (kinds: IdPrefix | readonly IdPrefix[], options: { orWord?: string } = {}) => {
  const prefixes: readonly IdPrefix[] = typeof kinds === "string" ? [kinds] : kinds;
  const { orWord } = options;
  const pattern = orWord === undefined ? idPattern(...prefixes) : `^(?:${idPatternBody(...prefixes)}|${orWord})$`;
  const message = `must be ${idKindsText(prefixes)}${orWord === undefined ? "" : ` or "${orWord}"`}`;
  return textField({ min: 1, max: ID_MAX_LENGTH, rule: patternRule(pattern, message) });
};

/** Far above the longest id (`view_` and a ULID, 31 characters): a longer text is refused for its length before the pattern runs. */
const ID_MAX_LENGTH = 64;

/** An id naming one resource, with its description. */
export const resourceId = (kinds: IdPrefix | readonly IdPrefix[], description: string) => idField(kinds).describe(description);

/** The project a request is about, in a query or a body. */
export const projectId = resourceId("prj", "The project id, e.g. prj_01J…");

/** A path naming a project: `/projects/:projectId…`. */
export const projectPath = z.object({ projectId }).strict();

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100."),
  cursor: textField({ min: 1, max: 512, maxBytes: 512 }).optional().describe("The nextCursor of the previous page."),
});

/**
 * A boolean query parameter: exactly `true` or `false` (a REST query carries the word, an MCP call the
 * JSON boolean). Not z.coerce.boolean, which reads every non-empty string, "false" included, as true.
 */
export const queryBoolean = (description: string) =>
  z.preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean({ message: "must be true or false" })).describe(description);

/** A value that may name several: "a,b" and ["a", "b,c"] become ["a", "b"] and ["a", "b", "c"]. */
const splitCommas = (v: unknown): unknown => {
  if (typeof v === "string") return v.split(",");
  if (Array.isArray(v)) return v.flatMap((item: unknown) => (typeof item === "string" ? item.split(",") : [item]));
  return v;
};

/**
 * A multi-valued query parameter over a field module's list schema: a REST query carries it repeated
 * (`status=open&status=done`, which the router keeps as an array because the schema is one) or as one
 * comma-separated value (`status=open,done`), an MCP call or a JSON body as an array; all parse to the same
 * list, so a bad member is named by its index (`status.1`) whichever form sent it.
 */
export const queryList = <T extends z.ZodType>(list: T) => z.preprocess(splitCommas, list);
