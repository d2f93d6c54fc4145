import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Actor, type Harness, startHarness } from "./harness";
import { createProject } from "./world";

// The relevance bound as an option of writes, through the whole API: a webhook endpoint's minRelevance,
// an alert rule's filters.minRelevance and the public dashboard's minRelevance are taken from 0 to 1,
// shown on reads, and a bound outside 0..1 is 400 naming the field over REST and MCP alike. What each
// bound selects is tested in its service (webhook, digest, mention).

let h: Harness;
let owner: Actor;
let stranger: Actor;
let projectId: string;
let client: Client;

beforeAll(async () => {
  h = await startHarness();
  owner = await h.newActor();
  stranger = await h.newActor();
  projectId = await createProject(h, owner);
  client = new Client({ name: "earshot-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.key}` } } }));
}, 60_000);
afterAll(async () => {
  await client?.close();
  await h?.stop();
});

const refusedOverMcp = async (name: string, args: Record<string, unknown>, path: string) => {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.structuredContent ?? result.content)).toContain(path);
};

it("webhook endpoints: minRelevance kept and shown, 0 clears it, 2 is 400 naming it, another workspace's endpoint 404", async () => {
  const input = { projectId, name: "Signal", url: "https://127.0.0.1:8443/signal", eventTypes: ["mention.created"] };
  const bad = await h.call("create_webhook", { ...input, minRelevance: 2 }, owner.key);
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ code: "validation_failed", errors: [expect.objectContaining({ path: "minRelevance" })] });
  await refusedOverMcp("create_webhook", { ...input, minRelevance: 2 }, "minRelevance");
  const made = await h.call("create_webhook", { ...input, minRelevance: 0.7 }, owner.key, { idempotencyKey: "relevance-webhook-1" });
  expect(made.status).toBe(201);
  const id = (made.body.data as { id: string; minRelevance: number }).id;
  expect(made.body.data).toMatchObject({ minRelevance: 0.7 });
  const replay = await h.call("create_webhook", { ...input, minRelevance: 0.7 }, owner.key, { idempotencyKey: "relevance-webhook-1" });
  expect((replay.body.data as { id: string }).id).toBe(id);
  expect((await h.call("get_webhook", { endpointId: id }, owner.key)).body.data).toMatchObject({ minRelevance: 0.7 });
  expect((await h.call("update_webhook", { endpointId: id, minRelevance: 0 }, owner.key)).body.data).toMatchObject({ minRelevance: null });
  expect((await h.call("update_webhook", { endpointId: id, minRelevance: 0.5 }, stranger.key)).status).toBe(404);
});

it("alert rules: filters.minRelevance kept and shown, 2 is 400 naming filters.minRelevance", async () => {
  const bad = await h.call("create_alert", { projectId, name: "Signal", filters: { minRelevance: 2 } }, owner.key);
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ errors: [expect.objectContaining({ path: "filters.minRelevance" })] });
  await refusedOverMcp("create_alert", { projectId, name: "Signal", filters: { minRelevance: 2 } }, "filters.minRelevance");
  const made = await h.call("create_alert", { projectId, name: "Signal", instant: true, filters: { minRelevance: 0.65 } }, owner.key);
  expect(made.status).toBe(201);
  expect(made.body.data).toMatchObject({ filters: { minRelevance: 0.65, keywordIds: [] } });
  const id = (made.body.data as { id: string }).id;
  expect((await h.call("update_alert", { alertId: id, filters: { minRelevance: 0.5 } }, stranger.key)).status).toBe(404);
});

it("the public dashboard: minRelevance kept and shown on the project, -1 is 400 naming it", async () => {
  const bad = await h.call("set_public_dashboard", { projectId, enabled: true, minRelevance: -1 }, owner.key);
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ errors: [expect.objectContaining({ path: "minRelevance" })] });
  await refusedOverMcp("set_public_dashboard", { projectId, enabled: true, minRelevance: -1 }, "minRelevance");
  const set = await h.call("set_public_dashboard", { projectId, enabled: true, minRelevance: 0.65 }, owner.key);
  expect(set.status).toBe(200);
  expect(set.body.data).toMatchObject({ publicDashboard: { enabled: true, minRelevance: 0.65 } });
  expect((await h.call("get_project", { projectId }, owner.key)).body.data).toMatchObject({ publicDashboard: { minRelevance: 0.65 } });
  expect((await h.call("set_public_dashboard", { projectId, enabled: true, minRelevance: 0.5 }, stranger.key)).status).toBe(404);
});
