import { isTool, OPERATIONS } from "@earshot/edge";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import fc from "fast-check";
import { type Harness, startHarness } from "./harness";
import { buildWorld, createKeyword, createKeywordGroup, keywordWithMentions, type World } from "./world";

// Property: whatever body a client sends to a write, the answer is never a 5xx, and when the write is
// refused nothing the caller can read has changed. Every property runs with a fixed seed, so a failure
// reproduces and a pass means the same thing every time.

let h: Harness;
let w: World;
/** A keyword, a custom group, a mention, a category and a saved view of the world's project, for the writes addressed to one. */
let keywordId: string;
let groupId: string;
let mentionId: string;
let categoryId: string;
let viewId: string;
beforeAll(async () => {
  h = await startHarness();
  w = await buildWorld(h);
  keywordId = (await createKeyword(h, w.owner, w.projectId)).id;
  groupId = await createKeywordGroup(h, w.owner, w.projectId);
  mentionId = (await keywordWithMentions(h, w.owner, w.projectId, 1)).mentions[0]!.id;
  categoryId = ((await h.call("create_category", { projectId: w.projectId, name: "Questions" }, w.owner.key)).body.data as { id: string }).id;
  viewId = ((await h.call("create_mention_view", { projectId: w.projectId, name: "Open", filters: { status: ["open"] } }, w.owner.key)).body.data as { id: string }).id;
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const snapshot = async () => {
  const [project, members, account, keys, projects, keywords, groups, mentions, categories, views] = await Promise.all([
    h.call("get_project", { projectId: w.projectId }, w.owner.key),
    h.call("list_project_members", { projectId: w.projectId }, w.owner.key),
    h.call("get_account", {}, w.owner.key),
    h.call("list_api_keys", { limit: 100 }, w.owner.key),
    h.call("list_projects", { limit: 100 }, w.owner.key),
    h.call("list_keywords", { projectId: w.projectId, limit: 100 }, w.owner.key),
    h.call("list_keyword_groups", { projectId: w.projectId, limit: 100 }, w.owner.key),
    h.call("list_mentions", { projectId: w.projectId, limit: 100 }, w.owner.key),
    h.call("list_categories", { projectId: w.projectId, limit: 100 }, w.owner.key),
    h.call("list_mention_views", { projectId: w.projectId, limit: 100 }, w.owner.key),
  ]);
  // lastUsedAt moves on its own (the snapshot's own reads use the key), so it is left out.
  const stableKeys = (keys.body.data as Array<Record<string, unknown>>).map(({ lastUsedAt: _ignored, ...k }) => k);
  return JSON.stringify([
    project.body.data,
    members.body.data,
    account.body.data,
    stableKeys,
    projects.body.data,
    keywords.body.data,
    groups.body.data,
    mentions.body.data,
    categories.body.data,
    views.body.data,
  ]);
};

const knownKeys = [
  ...["name", "description", "color", "icon", "enabledSources", "digestTimezone", "status", "email", "role", "memberType", "enabled", "websiteUrl"],
  ...["confirmation", "scopes", "expiresAt"],
  ...["value", "sources", "aliases", "excludedTerms", "filters", "caseSensitive", "groupId", "active", "order"],
  ...["categoryId"],
];

const hostileValue = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.integer()), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  fc.constantFrom("", " ", "#12345g", "x".repeat(501), "DELETE", "editor", "owner", "archived", "ftp://x", "Mars/Olympus", "💥".repeat(11)),
);

// Names Object.prototype already has: input handling must treat them as plain (unknown) fields.
const prototypeKeys = ["__proto__", "constructor", "valueOf", "toString", "hasOwnProperty", "isPrototypeOf", "toLocaleString"];

const hostileKey = fc.oneof(fc.constantFrom(...knownKeys), fc.constantFrom(...prototypeKeys), fc.string({ maxLength: 10 }));

const hostileBody = fc.dictionary(hostileKey, hostileValue, { maxKeys: 6 });

// delete_account has its own property below: a successful one would end the shared owner's access.
const writes = OPERATIONS.filter((o) => o.method !== "GET" && o.name !== "delete_account");

/**
 * The snapshot taken after a refused write: nothing changed since, so it is the next run's "before" (half
 * the reads of the suite). A write that succeeded clears it, and the next run reads afresh.
 */
let unchanged: string | undefined;

describe.each(writes.map((op) => [op.name, op] as const))("%s with property-based bodies", (name, op) => {
  it("never answers 5xx and never changes stored data when it refuses", async () => {
    await fc.assert(
      fc.asyncProperty(hostileBody, fc.constantFrom("projectId", "memberId", "keyId"), async (body, _idField) => {
        const before = unchanged ?? (await snapshot());
        unchanged = undefined;
        const input: Record<string, unknown> = { ...body };
        // create_keyword and create_keyword_group name their project in the body.
        if ((op.input.path?.shape && "projectId" in op.input.path.shape) || (op.input.body?.shape && "projectId" in op.input.body.shape)) input.projectId = w.projectId;
        if (op.input.path?.shape && "memberId" in op.input.path.shape) input.memberId = "mbr_01JZZZZZZZZZZZZZZZZZZZZZZZ";
        if (op.input.path?.shape && "keyId" in op.input.path.shape) input.keyId = "key_01JZZZZZZZZZZZZZZZZZZZZZZZ";
        if (op.input.path?.shape && "keywordId" in op.input.path.shape) input.keywordId = keywordId;
        if (op.input.path?.shape && "groupId" in op.input.path.shape) input.groupId = groupId;
        if (op.input.path?.shape && "mentionId" in op.input.path.shape) input.mentionId = mentionId;
        if (op.input.path?.shape && "categoryId" in op.input.path.shape) input.categoryId = categoryId;
        if (op.input.path?.shape && "viewId" in op.input.path.shape) input.viewId = viewId;
        const res = await h.call(name, input, w.owner.key);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          const after = await snapshot();
          expect(after).toBe(before);
          unchanged = after;
        }
      }),
      { seed: 20260824, numRuns: 20 },
    );
  }, 120_000);
});

it("never answers 5xx to delete_account and leaves the account active whenever it refuses", async () => {
  const actor = await h.newActor();
  await fc.assert(
    fc.asyncProperty(hostileBody, async (body) => {
      fc.pre(body.confirmation !== "DELETE");
      const res = await h.call("delete_account", body, actor.key);
      expect(res.status).toBeLessThan(500);
      expect(res.status).toBeGreaterThanOrEqual(400);
      const account = await h.call("get_account", {}, actor.key);
      expect((account.body.data as { status: string }).status).toBe("active");
    }),
    { seed: 20260825, numRuns: 30 },
  );
}, 120_000);

describe("MCP tool calls with hostile argument names", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "fuzz", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${w.owner.key}` } } }));
  });
  afterAll(async () => {
    await client?.close();
  });

  // Own properties only, as JSON.parse makes them: `__proto__` stays a key instead of a prototype.
  const ownObject = (entries: Array<[string, unknown]>) =>
    entries.reduce<Record<string, unknown>>((o, [k, v]) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true }), {});

  it.each(OPERATIONS.filter(isTool).map((o) => [o.name, o] as const))(
    "%s refuses a prototype-named argument with a 400 tool result naming it, never a JSON-RPC or 5xx error",
    async (name, op) => {
      await fc.assert(
        fc.asyncProperty(hostileBody, fc.constantFrom(...prototypeKeys), hostileValue, async (body, protoKey, protoValue) => {
          const args = ownObject([...Object.entries(body), [protoKey, protoValue]]);
          if (op.input.path?.shape && Object.hasOwn(op.input.path.shape, "projectId")) args.projectId = w.projectId;
          const result = await client.callTool({ name, arguments: args });
          expect(result.isError).toBe(true);
          const problem = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { status: number; errors?: Array<{ path: string }> };
          expect(problem.status).toBe(400);
          expect(problem.errors?.map((e) => e.path)).toContain(protoKey);
        }),
        { seed: 20260826, numRuns: 10 },
      );
    },
    120_000,
  );
});

it("answers a body that is not JSON with 400 naming the body", async () => {
  const res = await h.api("POST", "/api/v1/projects", { key: w.owner.key, rawBody: '{"name": ' });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: "validation_failed", errors: [{ path: "body", message: "is not valid JSON: the body ends before the JSON does at line 1, column 10" }] });
});

it("answers a JSON body that is not an object with 400 naming the body", async () => {
  const res = await h.api("POST", "/api/v1/projects", { key: w.owner.key, rawBody: "[1,2]" });
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([{ path: "body", message: "must be a JSON object" }]);
});
