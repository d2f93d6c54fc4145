import { type FieldError, ID_PREFIXES, type IdPrefix, isDomainError, newId } from "@earshot/platform";
import { operationInputSchema } from "../docs/openapi";
import { splitInput, validateInput } from "../pipeline/validate";
import { OPERATIONS } from "./index";
import type { Operation } from "./operation";

// Every id an operation takes, wherever it takes it (path, query, body, nested in filters), is checked for
// its kind's shape, so `keywordId=Acme` (a name where an id goes) is 400 naming the field instead of
// matching nothing. The walk finds the ids by name (a field called `…Id` or `…Ids`) in each operation's
// published input schema: an operation that declares one without the check fails here.

interface IdSite {
  /** Dotted path of the field in the merged input (MCP's arguments), e.g. `filters.keywordIds`. */
  path: string;
  list: boolean;
  /** The published pattern of the id (of a list's members). */
  pattern: string | undefined;
}

type Json = { [key: string]: unknown };

const ID_NAME = /Ids?$/;

/** The id fields of a JSON Schema object, nested objects and nullable or defaulted forms included. */
const idSites = (schema: Json, prefix = ""): IdSite[] => {
  const sites: IdSite[] = [];
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const path = prefix ? `${prefix}.${name}` : name;
    for (const variant of [prop, ...((prop.anyOf ?? []) as Json[])]) {
      if (variant.type === "object") sites.push(...idSites(variant, path));
      else if (ID_NAME.test(name) && variant.type === "array") sites.push({ path, list: true, pattern: (variant.items as Json).pattern as string | undefined });
      else if (ID_NAME.test(name) && variant.type === "string") sites.push({ path, list: false, pattern: variant.pattern as string | undefined });
    }
  }
  return sites;
};

/** `{ a: { b: value } }` for the path `a.b`. */
const nested = (path: string, value: unknown): Record<string, unknown> =>
  path.split(".").reduceRight<Record<string, unknown>>((inner, key, i, keys) => ({ [key]: i === keys.length - 1 ? value : inner }), {});

/** The field errors validation reports for one value at one site, as REST carries it (a query value is text). */
const errorsAt = (op: Operation, site: IdSite, id: string): FieldError[] => {
  const top = site.path.split(".")[0] as string;
  const inQuery = Object.hasOwn(op.input.query?.shape ?? {}, top);
  const value = site.list && !inQuery ? [id] : id;
  try {
    validateInput(op, splitInput(op, nested(site.path, value)));
    return [];
  } catch (err) {
    if (!isDomainError(err)) throw err;
    const named = site.list ? `${site.path}.0` : site.path;
    return err.errors.filter((e) => e.path === named);
  }
};

/** "must be a keyword id (kw_…)", "must be a member id (mbr_…) or an invitation id (inv_…)", `… or "none"`. */
const REFUSAL = /^must be an? [\w ]+ id \((\w+)_…\)( or an? [\w ]+ id \(\w+_…\))*( or "\w+")?$/;

const sites = OPERATIONS.flatMap((op) => idSites(operationInputSchema(op) as Json).map((site) => ({ op, site })));
const cases = sites.map(({ op, site }) => [op.name, site.path, op, site] as const);

it("finds the ids of the catalog (projects, keywords, groups, mentions, filters, webhooks…)", () => {
  const paths = new Set(sites.map(({ site }) => site.path));
  for (const path of ["projectId", "keywordId", "groupId", "mentionId", "categoryId", "viewId", "memberId", "keyId", "alertId", "endpointId", "deliveryId", "filters.keywordIds", "filters.groupId"]) {
    expect({ path, found: paths.has(path) }).toEqual({ path, found: true });
  }
});

describe.each(cases)("%s: %s", (_name, _path, op, site) => {
  it("publishes the id's shape as an anchored pattern that a name does not match", () => {
    expect(site.pattern).toMatch(/^\^.*\$$/);
    expect(new RegExp(site.pattern as string, "u").test("Acme")).toBe(false);
  });

  it("refuses a name in the id's place with 400 naming the field and the kind of id it takes", () => {
    for (const wrong of ["Acme", "kw_Acme", newId("req"), ` ${newId("prj")}`]) {
      const errors = errorsAt(op, site, wrong);
      expect({ wrong, messages: errors.map((e) => e.message) }).toEqual({ wrong, messages: [expect.stringMatching(REFUSAL)] });
    }
  });

  it("takes a fresh id of the kind it names, which matches the published pattern", () => {
    const [message] = errorsAt(op, site, "Acme").map((e) => e.message);
    const prefix = REFUSAL.exec(message ?? "")?.[1] as IdPrefix;
    expect(ID_PREFIXES).toContain(prefix);
    const id = newId(prefix);
    expect(errorsAt(op, site, id)).toEqual([]);
    expect(new RegExp(site.pattern as string, "u").test(id)).toBe(true);
  });
});
