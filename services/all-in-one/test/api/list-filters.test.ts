import { isTool, listQueryParameters, OPERATIONS, type Operation } from "@earshot/edge";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Actor, type Harness, startHarness } from "./harness";
import { createKeyword, createKeywordGroup, createProject, ingestPosts, listAllMentions, type MentionData, postFor } from "./world";

// Every list filter of every operation takes its values in each of the forms the README promises: the
// parameter repeated (status=open&status=done), one comma-separated value (status=open,done) and, in MCP,
// a JSON array; all three select the same mentions, which are those of either value. The filters are
// found in the catalog (the query parameters whose schema is an array), so a new one is walked too.

let h: Harness;
let owner: Actor;
let projectId: string;
let mentions: MentionData[];
let client: Client;

beforeAll(async () => {
  h = await startHarness();
  owner = await h.newActor();
  projectId = await createProject(h, owner);
  const groupId = await createKeywordGroup(h, owner, projectId);
  const acme = await createKeyword(h, owner, projectId, { value: "Acme", sources: ["x", "reddit", "youtube"] });
  const globex = await createKeyword(h, owner, projectId, { value: "Globex", groupId });
  await ingestPosts(h, [
    postFor(projectId, { text: "I love Acme, it is great and amazing", source: "x", author: { handle: "alice" } }),
    postFor(projectId, { text: "Globex is terrible, awful, I hate it", source: "reddit", author: { handle: "bob" } }),
    postFor(projectId, { text: "Acme and Globex shipped a release", source: "reddit", author: { handle: "carol" } }),
    postFor(projectId, { text: "Acme again", source: "youtube", author: { handle: "dave" } }),
  ]);
  mentions = await listAllMentions(h, owner, projectId);
  expect(mentions).toHaveLength(4);
  expect(new Set(mentions.flatMap((m) => m.keywordIds))).toEqual(new Set([acme.id, globex.id]));
  // Triage two of them, so status and categoryId have several values.
  const [first, second] = mentions as [MentionData, MentionData];
  await h.call("update_mention_status", { mentionId: first.id, status: "done" }, owner.key);
  await h.call("update_mention_status", { mentionId: second.id, status: "follow_up" }, owner.key);
  const category = await h.call("create_category", { projectId, name: "Questions" }, owner.key);
  await h.call("categorize_mention", { mentionId: first.id, categoryId: (category.body.data as { id: string }).id }, owner.key);
  mentions = await listAllMentions(h, owner, projectId);
  client = new Client({ name: "earshot-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.key}` } } }));
}, 60_000);
afterAll(async () => {
  await client?.close();
  await h?.stop();
});

/** What a mention holds for each list filter: where the test finds values that select something. */
const VALUES_OF: Record<string, (m: MentionData) => string[]> = {
  status: (m) => [m.status],
  keywordId: (m) => m.keywordIds,
  groupId: (m) => m.groupIds,
  source: (m) => [m.source],
  categoryId: (m) => [m.categoryId ?? "none"],
  sentiment: (m) => [m.sentiment.label],
  author: (m) => [m.author.handle],
  // Without scores (or with every mention scored alike) one label holds all: the other value is a label
  // no mention has, so the pair still tests a list whose first two values select something.
  relevance: (m) => {
    const label = (m as { relevance?: { label: string } | null }).relevance?.label ?? "uncertain";
    return [label, label === "irrelevant" ? "relevant" : "irrelevant"];
  },
};

/** The inputs an operation needs besides its filters. */
const BASE: Record<string, Record<string, unknown>> = {
  list_mentions: { limit: 100 },
  list_mention_changes: { limit: 100 },
  get_mention_analytics: { interval: "day", groupBy: "source" },
  export_mentions: { format: "ndjson" },
};

const withLists = OPERATIONS.filter((op) => listQueryParameters(op).size > 0);
const cases = withLists.flatMap((op) => [...listQueryParameters(op)].map((filter) => [op.name, filter, op] as const));

/**
 * The query parameters that take one value, by operation: paging, words (q), instants, a view, the
 * analytics period and shape, the format, and list_keywords' filters. Any other is a list filter, so a
 * filter added as one value (as author once was, where author=bob,alice looked for one "bob,alice") fails here.
 */
const SINGLE_VALUED: Record<string, readonly string[]> = {
  "*": ["projectId", "limit", "cursor"],
  list_keywords: ["groupId", "active", "source"],
  list_mentions: ["q", "since", "until", "viewId", "minRelevance", "sort", "collapse"],
  list_mention_changes: ["viewId", "wait", "minRelevance", "collapse"],
  get_mention_analytics: ["q", "since", "until", "interval", "groupBy", "minRelevance"],
  export_mentions: ["q", "since", "until", "viewId", "format", "minRelevance", "collapse"],
  // A delivery log is read one status or event type at a time (the README says so).
  list_webhook_deliveries: ["status", "eventType", "since"],
};

it("takes every filter but the single-valued ones as a list", () => {
  for (const op of OPERATIONS.filter((o) => o.method === "GET" && o.input.query)) {
    const single = new Set([...(SINGLE_VALUED["*"] ?? []), ...(SINGLE_VALUED[op.name] ?? [])]);
    const scalars = Object.keys(op.input.query!.shape).filter((name) => !listQueryParameters(op).has(name) && !single.has(name));
    expect({ op: op.name, scalars }).toEqual({ op: op.name, scalars: [] });
  }
});

it("finds the list filters in the catalog", () => {
  expect(withLists.map((op) => op.name).sort()).toEqual(Object.keys(BASE).sort());
  // The change feed selects by keywords, groups and relevance labels only; the others take every list filter.
  expect(cases.length).toBeGreaterThanOrEqual(8 * (withLists.length - 1) + 3);
});

/** The operations answering a page of mentions (compared by their ids). */
const MENTION_PAGES = new Set(["list_mentions", "list_mention_changes"]);

/** What an answer selected: the mention ids of a list, the lines of an export, the data of the rest. */
const selected = async (op: Operation, input: Record<string, unknown>): Promise<unknown> => {
  const res = await h.api("GET", h.pathOf(op.name, input), { key: owner.key });
  expect(res.status).toBe(200);
  if (MENTION_PAGES.has(op.name)) return (res.body.data as MentionData[]).map((m) => m.id).sort();
  if (op.download) return res.text.split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { id: string }).id).sort();
  return res.body.data;
};

describe.each(cases)("%s %s", (opName, filter, op) => {
  const twoValues = (): [string, string] => {
    const read = VALUES_OF[filter];
    if (!read) throw new Error(`list filter ${filter} of ${opName}: add where a mention holds its values to VALUES_OF`);
    const values = [...new Set(mentions.flatMap(read))].sort();
    expect(values.length).toBeGreaterThanOrEqual(2);
    return [values[0]!, values[1]!];
  };

  it("selects the same with the parameter repeated, comma-separated, and as an MCP array", async () => {
    const [a, b] = twoValues();
    const base = { projectId, ...BASE[opName] };
    const repeated = await selected(op, { ...base, [filter]: [a, b] });
    expect(await selected(op, { ...base, [filter]: `${a},${b}` })).toEqual(repeated);
    if (isTool(op)) {
      const result = await client.callTool({ name: opName, arguments: { ...base, [filter]: [a, b] } });
      expect(result.isError).toBeFalsy();
      const data = (result.structuredContent as { data: unknown }).data;
      expect(MENTION_PAGES.has(opName) ? (data as MentionData[]).map((m) => m.id).sort() : data).toEqual(repeated);
    }
    if (MENTION_PAGES.has(opName) || op.download) {
      // Values of one filter are alternatives: the answer is every mention either one selects.
      const either = new Set([...((await selected(op, { ...base, [filter]: [a] })) as string[]), ...((await selected(op, { ...base, [filter]: [b] })) as string[])]);
      expect(repeated).toEqual([...either].sort());
      expect(either.size).toBeGreaterThan(0);
    }
  });
});

describe("a misspelt filter", () => {
  it("is refused with 400 naming it and the filter it is a typo of, over REST and MCP alike, not read as no filter", async () => {
    const rest = await h.api("GET", `/api/v1/mentions?projectId=${projectId}&sentimnt=negative`, { key: owner.key });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ code: "validation_failed", errors: [{ path: "sentimnt", message: "is not a query parameter of list_mentions; did you mean `sentiment`?" }] });
    const mcp = await client.callTool({ name: "list_mentions", arguments: { projectId, sentimnt: "negative" } });
    expect(mcp.isError).toBe(true);
    expect(JSON.stringify(mcp.structuredContent ?? mcp.content)).toContain("did you mean `sentiment`?");
  });
});

describe("a relevance filter out of range", () => {
  it.each(["list_mentions", "list_mention_changes", "get_mention_analytics", "export_mentions"])(
    "%s: minRelevance=2 and relevance=bogus are 400 naming the field, over REST and MCP alike",
    async (name) => {
      const op = OPERATIONS.find((o) => o.name === name)!;
      const base = { projectId, ...BASE[name] };
      for (const [input, path] of [
        [{ minRelevance: "2" }, "minRelevance"],
        [{ minRelevance: "high" }, "minRelevance"],
        [{ relevance: "bogus" }, "relevance.0"],
      ] as const) {
        const rest = await h.api("GET", h.pathOf(name, { ...base, ...input }), { key: owner.key });
        expect(rest.status).toBe(400);
        expect(rest.body).toMatchObject({ code: "validation_failed", errors: [expect.objectContaining({ path })] });
      }
      if (isTool(op)) {
        const mcp = await client.callTool({ name, arguments: { ...base, minRelevance: 2 } });
        expect(mcp.isError).toBe(true);
        expect(JSON.stringify(mcp.structuredContent ?? mcp.content)).toContain("minRelevance");
      }
      // In range, the bound is taken (a mention stored without a score counts as 0.5).
      expect((await h.api("GET", h.pathOf(name, { ...base, minRelevance: "0.5", relevance: "uncertain,relevant" }), { key: owner.key })).status).toBe(200);
    },
  );

  it("selects by the score each mention was stored with, in every read, and sort=relevance orders by it", async () => {
    const scoreOf = (m: MentionData) => (m as { relevance?: { score: number } | null }).relevance?.score ?? 0.5;
    const scores = [...new Set(mentions.map(scoreOf))].sort((a, b) => a - b);
    // A bound at the middle score: some mentions reach it and, when the scores differ, some do not.
    const bound = scores[Math.floor(scores.length / 2)]!;
    const expected = mentions.filter((m) => scoreOf(m) >= bound).map((m) => m.id).sort();
    for (const name of ["list_mentions", "list_mention_changes", "export_mentions"]) {
      const op = OPERATIONS.find((o) => o.name === name)!;
      expect({ name, ids: await selected(op, { projectId, ...BASE[name], minRelevance: String(bound) }) }).toEqual({ name, ids: expected });
    }
    const sorted = await h.api("GET", h.pathOf("list_mentions", { projectId, sort: "relevance", limit: 100 }), { key: owner.key });
    const order = (sorted.body.data as MentionData[]).map(scoreOf);
    expect(order).toEqual([...order].sort((a, b) => b - a));
  });

  it("list_mentions: sort=relevance is taken and an unknown sort is 400 naming sort", async () => {
    const ok = await h.api("GET", h.pathOf("list_mentions", { projectId, sort: "relevance", limit: 100 }), { key: owner.key });
    expect(ok.status).toBe(200);
    expect((ok.body.data as MentionData[]).map((m) => m.id).sort()).toEqual(mentions.map((m) => m.id).sort());
    const bad = await h.api("GET", h.pathOf("list_mentions", { projectId, sort: "loudest" }), { key: owner.key });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [expect.objectContaining({ path: "sort" })] });
  });
});

describe("a name where an id goes", () => {
  it("is refused in a query with 400 naming the parameter and the kind of id it takes, over REST and MCP alike, not read as matching nothing", async () => {
    const rest = await h.api("GET", `/api/v1/mentions?projectId=${projectId}&keywordId=Acme`, { key: owner.key });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ code: "validation_failed", errors: [{ path: "keywordId.0", message: "must be a keyword id (kw_…)" }] });
    expect(rest.body.detail).toContain("keywordId");
    const mcp = await client.callTool({ name: "list_mentions", arguments: { projectId, keywordId: ["Acme"] } });
    expect(mcp.isError).toBe(true);
    expect(JSON.stringify(mcp.structuredContent ?? mcp.content)).toContain("must be a keyword id (kw_…)");
  });

  it("is refused in a path with 400 naming the parameter, over REST and MCP alike", async () => {
    const rest = await h.api("GET", "/api/v1/keywords/Acme", { key: owner.key });
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ code: "validation_failed", errors: [{ path: "keywordId", message: "must be a keyword id (kw_…)" }] });
    const mcp = await client.callTool({ name: "get_keyword", arguments: { keywordId: "Acme" } });
    expect(mcp.isError).toBe(true);
    expect(JSON.stringify(mcp.structuredContent ?? mcp.content)).toContain("must be a keyword id (kw_…)");
  });

  it("of the right shape that names nothing the caller may see is still 404", async () => {
    const rest = await h.api("GET", "/api/v1/keywords/kw_01JZZZZZZZZZZZZZZZZZZZZZZZ", { key: owner.key });
    expect(rest.status).toBe(404);
  });
});
