import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import fc from "fast-check";
import { type Actor, type ApiResponse, type Harness, startHarness } from "./harness";
import { arbitraryOf, type JsonSchema } from "./json-schema-arbitrary";
import { createKeyword, createKeywordGroup, createProject, keywordWithMentions } from "./world";

// Property: an input built from the published OpenAPI document alone (what an MCP client or a generated
// SDK knows) is never refused for a rule JSON Schema could have said. Every write gets values generated
// from its request schema and parameters; the answer must not be a 5xx, and a 400 may only name rules that
// JSON Schema cannot express, which the field descriptions and the document's introduction state instead.
// The resource a write addresses (its project, the keyword in its path) is a real one of the test's
// world, so the request reaches the service behind the edge; every other value is the schema's.

/** Rules the schema cannot carry, by the message the API gives for them, with where they are stated. */
const UNEXPRESSIBLE: ReadonlyArray<[RegExp, string]> = [
  [/^must be in the future$/, "expiresAt: the description (depends on the time of the request)"],
  [/^must be after since$/, "until: the description (compares two fields)"],
  [/^must be before until$/, "since: the description (compares two fields; until defaults to now)"],
  [/^must be at most \d+ days (before until|after since)$/, "preview since/until: the description (the period's length compares two fields)"],
  [/^must be an IANA time zone/, "digestTimezone: the pattern gives the shape, the description the zone database"],
  [/^must be an http or https URL$/, "websiteUrl: the pattern gives the shape, the description that it must parse with a host"],
  [/^must be at most \d+ bytes of UTF-8$/, "byte allowances: the descriptions"],
  [/combining marks on one character|code points into one character/, "the document's introduction"],
  [/^must contain a letter, digit or symbol$/, "keyword phrases: the description (letters and symbols as Unicode classes them)"],
  [/^must not repeat/, "lists of trimmed phrases: uniqueItems compares them untrimmed, the description says once trimmed"],
  [/^is not (a|an|one of) .*(of this project|integration's pages)/, "references to other resources: the descriptions"],
  [/^must be an absolute URL with a scheme and a host/, "webhook url: the pattern gives the shape, the description that it must parse with a host"],
  [/^has an invalid port/, "webhook url: the pattern gives the shape, URL parsing the port's range"],
  [/^must be an https URL: plain http is accepted only/, "webhook url: the description (plain http only to private addresses, where the operator allows them)"],
  [/^must name a host that resolves/, "webhook url: the description (its host must resolve)"],
  [/^must reach a public address/, "webhook url: the description (where its host resolves)"],
  [/^is required for the standard format/, "webhook eventTypes: the description (required unless format is a chat format: compares two fields)"],
  [/^must not hold a user name or password$/, "feed url: the description (no user name or password in it)"],
  [/^chat formats \(slack, discord\) carry mention\.created only/, "webhook eventTypes: the description (what a chat format takes: compares two fields)"],
];

let sims: RunningSimulators;
let h: Harness;
let owner: Actor;
let doc: { paths: Record<string, Record<string, OpenApiOperation>> };
/** The world's resources, by the path parameter that names one. */
const ids: Record<string, string> = {};

interface OpenApiOperation {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: JsonSchema }>;
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
}

beforeAll(async () => {
  // LinkedIn's operations need a LinkedIn to talk to: the simulator's.
  sims = await startSimulators({ platforms: ["linkedin"], generate: false });
  h = await startHarness(sims.settings);
  owner = await h.newActor();
  ids.projectId = await createProject(h, owner);
  ids.keywordId = (await createKeyword(h, owner, ids.projectId)).id;
  ids.groupId = await createKeywordGroup(h, owner, ids.projectId);
  ids.mentionId = (await keywordWithMentions(h, owner, ids.projectId, 1)).mentions[0]!.id;
  ids.categoryId = ((await h.call("create_category", { projectId: ids.projectId, name: "Questions" }, owner.key)).body.data as { id: string }).id;
  ids.viewId = ((await h.call("create_mention_view", { projectId: ids.projectId, name: "Open" }, owner.key)).body.data as { id: string }).id;
  const member = await h.addMember(owner, ids.projectId, "viewer");
  const members = (await h.call("list_project_members", { projectId: ids.projectId }, owner.key)).body.data as Array<{ id: string; userId: string | null }>;
  ids.memberId = members.find((m) => m.userId === member.userId)!.id;
  // A key of its own to revoke: the owner's calls go on with theirs.
  ids.keyId = ((await h.call("create_api_key", { name: "To revoke", scopes: ["projects:read"] }, owner.key)).body.data as { id: string }).id;
  doc = (await (await fetch(`${h.url}/api/v1/openapi.json`)).json()) as typeof doc;
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await sims?.close();
});

const writes = (): Array<[string, OpenApiOperation]> =>
  Object.values(doc.paths).flatMap((methods) => Object.entries(methods).filter(([method]) => method !== "get").map(([, op]) => [op.operationId, op] as [string, OpenApiOperation]));

/** The whole input of a write as one schema: its path and query parameters beside its body's members. */
const inputSchema = (op: OpenApiOperation): JsonSchema => {
  const body = op.requestBody?.content["application/json"].schema ?? { properties: {}, required: [] };
  const params = (op.parameters ?? []).filter((p) => p.in === "path" || p.in === "query");
  return {
    type: "object",
    properties: { ...Object.fromEntries(params.map((p) => [p.name, p.schema])), ...body.properties },
    required: [...params.filter((p) => p.required).map((p) => p.name), ...(body.required ?? [])],
  };
};

/**
 * Writes that end what the others need (an archived project, a deleted account) run as a fresh owner
 * with a fresh project each time.
 */
const ENDS_THE_WORLD = new Set(["archive_project", "update_project", "delete_account"]);

const contextFor = async (opName: string): Promise<{ key: string; ids: Record<string, string> }> => {
  if (!ENDS_THE_WORLD.has(opName)) return { key: owner.key, ids };
  const actor = await h.newActor();
  return { key: actor.key, ids: { projectId: await createProject(h, actor) } };
};

interface Refusal {
  op: string;
  status: number;
  input: Record<string, unknown>;
  errors: Array<{ path: string; message: string }>;
}

/** The field errors of a 400 that name a rule JSON Schema could have carried; a 5xx as a whole. */
const unpublishedRules = (op: string, input: Record<string, unknown>, res: ApiResponse): Refusal | undefined => {
  if (res.status >= 500) return { op, status: res.status, input, errors: [{ path: "", message: res.text.slice(0, 300) }] };
  if (res.status !== 400) return undefined;
  const errors = ((res.body.errors ?? []) as Array<{ path: string; message: string }>).filter((e) => !UNEXPRESSIBLE.some(([re]) => re.test(e.message)));
  return errors.length > 0 || !res.body.errors ? { op, status: 400, input, errors } : undefined;
};

it("generates an input for every write from the document", () => {
  for (const [name, op] of writes()) expect(() => arbitraryOf(inputSchema(op))).not.toThrow(name);
  expect(writes().length).toBeGreaterThan(20);
});

it("refuses no input built from the published schemas for a rule they could state, and never fails with a 5xx", async () => {
  const found: Refusal[] = [];
  for (const [name, op] of writes()) {
    const runs = ENDS_THE_WORLD.has(name) ? 5 : 15;
    await fc.assert(
      fc.asyncProperty(arbitraryOf(inputSchema(op)) as fc.Arbitrary<Record<string, unknown>>, async (generated) => {
        const context = await contextFor(name);
        // The resources addressed are the world's; the values are the schema's.
        const input = { ...generated };
        for (const [param, id] of Object.entries(context.ids)) if (param in input || (op.parameters ?? []).some((p) => p.name === param)) input[param] = id;
        const refusal = unpublishedRules(name, input, await h.call(name, input, context.key));
        if (refusal) found.push(refusal);
      }),
      { seed: 20261124, numRuns: runs },
    );
  }
  // Every refusal at once, so one run tells the whole story.
  expect(found).toEqual([]);
}, 120_000);
