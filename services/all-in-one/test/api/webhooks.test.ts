import { writeFile } from "node:fs/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { join } from "node:path";
import { makeTempDir, waitFor } from "@earshot/platform/testing";
import { Webhook } from "standardwebhooks";
import { type ChatFake, startDiscordFake, startSlackFake } from "../../../webhook/src/chat-fakes-test-support";
import { type Received, type Receiver, startReceiver } from "../../../webhook/src/receiver-test-support";
import { createWebhook } from "./cases/webhooks";
import { type Harness, startHarness } from "./harness";
import { buildWorld, createProject, keywordWithMentions, type World } from "./world";

// Webhooks end to end on the all-in-one: a real HTTPS receiver (its CA handed to the delivery service by
// EARSHOT_WEBHOOK_CA_FILE; the harness allows private addresses, as a receiver on this machine needs) verifying every
// delivery with the standardwebhooks library.

let h: Harness;
let w: World;
let receiver: Receiver;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  receiver = await startReceiver();
  const tmp = await makeTempDir("earshot-webhook-ca-");
  cleanup = tmp.cleanup;
  const caFile = join(tmp.dir, "ca.pem");
  await writeFile(caFile, receiver.ca);
  h = await startHarness({ EARSHOT_WEBHOOK_CA_FILE: caFile, EARSHOT_WEBHOOK_RETRY_SCHEDULE: "0,1,2" });
  w = await buildWorld(h);
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await receiver?.close();
  await cleanup?.();
});

const headersOf = (r: Received): Record<string, string> => ({
  "webhook-id": String(r.headers["webhook-id"]),
  "webhook-timestamp": String(r.headers["webhook-timestamp"]),
  "webhook-signature": String(r.headers["webhook-signature"]),
});

const bodiesOf = (type: string) => receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === type);

it("sends mention.created for an imported post, signed so the receiver verifies it, and logs the delivery", async () => {
  const webhook = await createWebhook(h, w.owner, w.projectId, ["mention.created"], receiver.url);
  const { mentions } = await keywordWithMentions(h, w.owner, w.projectId, 1);
  const mention = mentions[0]!;
  await waitFor(() => bodiesOf("mention.created").length >= 1, 15_000);
  const got = bodiesOf("mention.created")[0]!;
  const payload = new Webhook(webhook.secret).verify(got.body, headersOf(got)) as { type: string; data: { id: string; projectId: string; text: string } };
  expect(payload).toMatchObject({ type: "mention.created", data: { id: mention.id, projectId: w.projectId, text: mention.text } });

  let log: Array<{ id: string; eventId: string; status: string }> = [];
  await waitFor(async () => {
    log = (await h.call("list_webhook_deliveries", { endpointId: webhook.id }, w.owner.key)).body.data as typeof log;
    return log[0]?.status === "succeeded";
  }, 10_000);
  expect(log[0]?.eventId).toBe(got.headers["webhook-id"]);
  const detail = await h.call("get_webhook_delivery", { endpointId: webhook.id, deliveryId: log[0]!.id }, w.owner.key);
  expect(detail.body.data).toMatchObject({ request: { body: got.body }, attemptLog: [{ statusCode: 200, error: null }] });
});

it("sends test_webhook's event to exactly that endpoint, and counts it in get_usage", async () => {
  const other = await createWebhook(h, w.owner, null, ["keyword.created"], `${receiver.url}?other`);
  const target = await createWebhook(h, w.owner, null, ["keyword.created"], `${receiver.url}?target`);
  const before = (await h.call("get_usage", {}, w.owner.key)).body.data as { limits: { webhookDeliveriesPerDay: { used: number; allowance: number } } };
  const res = await h.call("test_webhook", { endpointId: target.id }, w.owner.key);
  expect(res.status).toBe(202);
  const eventId = (res.body.data as { eventId: string }).eventId;
  await waitFor(() => receiver.received.some((r) => r.headers["webhook-id"] === eventId), 10_000);
  const sent = receiver.received.filter((r) => r.headers["webhook-id"] === eventId);
  expect(sent).toHaveLength(1);
  expect(new Webhook(target.secret).verify(sent[0]!.body, headersOf(sent[0]!))).toMatchObject({ type: "webhook.test", data: { endpointId: target.id } });
  expect(() => new Webhook(other.secret).verify(sent[0]!.body, headersOf(sent[0]!))).toThrow();
  await waitFor(async () => {
    const usage = (await h.call("get_usage", {}, w.owner.key)).body.data as typeof before;
    return usage.limits.webhookDeliveriesPerDay.used === before.limits.webhookDeliveriesPerDay.used + 1;
  }, 10_000);
  expect(before.limits.webhookDeliveriesPerDay.allowance).toBe(1000);
});

it("redelivers a delivery the receiver refused, under the same webhook-id", async () => {
  const webhook = await createWebhook(h, w.owner, null, ["keyword.created"], `${receiver.url}?redeliver`);
  // This endpoint's test event names it; other tests' deliveries still get 200.
  receiver.answer((r) => (r.body.includes(webhook.id) ? { status: 503 } : { status: 200 }));
  const test = await h.call("test_webhook", { endpointId: webhook.id }, w.owner.key);
  const eventId = (test.body.data as { eventId: string }).eventId;
  let deliveryId = "";
  await waitFor(async () => {
    const log = (await h.call("list_webhook_deliveries", { endpointId: webhook.id, status: "failed" }, w.owner.key)).body.data as Array<{ id: string }>;
    deliveryId = log[0]?.id ?? "";
    return deliveryId !== "";
  }, 15_000);
  expect(receiver.received.filter((r) => r.headers["webhook-id"] === eventId)).toHaveLength(3);
  receiver.answer({ status: 200 });
  const again = await h.call("redeliver_webhook_delivery", { endpointId: webhook.id, deliveryId }, w.owner.key);
  expect(again.status).toBe(202);
  await waitFor(() => receiver.received.filter((r) => r.headers["webhook-id"] === eventId).length === 4, 10_000);
  const last = receiver.received.filter((r) => r.headers["webhook-id"] === eventId)[3]!;
  expect(new Webhook(webhook.secret).verify(last.body, headersOf(last))).toMatchObject({ type: "webhook.test" });
  await waitFor(async () => {
    const d = await h.call("get_webhook_delivery", { endpointId: webhook.id, deliveryId }, w.owner.key);
    return (d.body.data as { status: string }).status === "succeeded";
  }, 10_000);
});

it("deletes an endpoint with its delivery history", async () => {
  const webhook = await createWebhook(h, w.owner, null, ["keyword.created"], `${receiver.url}?delete`);
  await h.call("test_webhook", { endpointId: webhook.id }, w.owner.key);
  await waitFor(async () => ((await h.call("list_webhook_deliveries", { endpointId: webhook.id }, w.owner.key)).body.data as unknown[]).length === 1, 10_000);
  expect((await h.call("delete_webhook", { endpointId: webhook.id }, w.owner.key)).status).toBe(200);
  expect((await h.call("list_webhook_deliveries", { endpointId: webhook.id }, w.owner.key)).status).toBe(404);
});

describe("a receiver's URL, where the operator allows private networks (as the harness does)", () => {
  it("takes plain http to a receiver on this machine and delivers to it, signed so standardwebhooks verifies it", async () => {
    const plain = await startReceiver({ plainHttp: true });
    try {
      const hook = await createWebhook(h, w.owner, w.projectId, ["keyword.created"], plain.url);
      const res = await h.call("test_webhook", { endpointId: hook.id }, w.owner.key);
      expect(res.status).toBe(202);
      const [got] = await plain.waitFor(1);
      expect(new Webhook(hook.secret).verify(got!.body, headersOf(got!))).toMatchObject({ type: "webhook.test", data: { endpointId: hook.id } });
    } finally {
      await plain.close();
    }
  });

  it.each([
    ["a space", "https://hooks.example.com/my hooks", "must not contain spaces or other white space (write a space in a path or query as %20)"],
    ["a bad port", "https://hooks.example.com:99999/earshot", "has an invalid port: a port is a number from 1 to 65535"],
    ["a non-URL", "hooks.example.com/earshot", "must be an absolute URL with a scheme and a host, such as https://hooks.example.com/earshot"],
    ["plain http to a public address", "http://8.8.8.8/earshot", "must be an https URL: plain http is accepted only for a receiver on a private or loopback address, and 8.8.8.8 is a public address"],
    ["a host that does not resolve", "https://hooks.example.invalid/earshot", "must name a host that resolves: hooks.example.invalid is not known to DNS"],
  ])("refuses %s with 400 naming url and saying what is wrong", async (_what, url, message) => {
    for (const res of [
      await h.call("create_webhook", { projectId: w.projectId, name: "Hook", url, eventTypes: ["*"] }, w.owner.key),
      await h.call("update_webhook", { endpointId: (await createWebhook(h, w.owner, w.projectId)).id, url }, w.owner.key),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "validation_failed", errors: [{ path: "url", message }] });
    }
  });
});

describe("chat formats (Slack, Discord)", () => {
  // The fakes check each request against the providers' documented shapes; their certificates come from the
  // same test CA as the receiver's, which the harness trusts.
  let slack: ChatFake;
  let discord: ChatFake;
  let chatProjectId: string;

  beforeAll(async () => {
    slack = await startSlackFake();
    discord = await startDiscordFake();
    chatProjectId = await createProject(h, w.owner);
  });

  afterAll(async () => {
    await slack?.close();
    await discord?.close();
  });

  afterEach(() => {
    expect(slack.problems).toEqual([]);
    expect(discord.problems).toEqual([]);
  });

  const createChat = (format: string, extra: Record<string, unknown> = {}, key = w.owner.key, options: { idempotencyKey?: string } = {}) =>
    h.call("create_webhook", { projectId: chatProjectId, name: `${format} channel`, url: format === "discord" ? discord.url : slack.url, format, ...extra }, key, options);

  it("creates a Slack endpoint: the URL answered whole once, masked in every read; no secret; mention.created by default", async () => {
    const res = await createChat("slack");
    expect(res.status).toBe(201);
    const made = res.body.data as { id: string; url: string };
    expect(made).toMatchObject({ format: "slack", url: slack.url, eventTypes: ["mention.created"], secret: null, active: true });
    const masked = `https://localhost:${slack.receiver.port}/…1234`;
    expect((await h.call("get_webhook", { endpointId: made.id }, w.owner.key)).body.data).toMatchObject({ url: masked, format: "slack" });
    const listed = (await h.call("list_webhooks", { projectId: chatProjectId, limit: 100 }, w.owner.key)).body.data as Array<{ id: string; url: string }>;
    expect(listed.find((x) => x.id === made.id)?.url).toBe(masked);
    const renamed = await h.call("update_webhook", { endpointId: made.id, name: "Renamed" }, w.owner.key);
    expect(renamed.body.data).toMatchObject({ url: masked, secret: null });
  });

  it("refuses * or another event type for a chat format (naming eventTypes), an unknown format (naming format), a format on update and a rotation", async () => {
    for (const eventTypes of [["*"], ["keyword.created"]]) {
      const res = await createChat("discord", { eventTypes });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: "eventTypes", message: expect.stringMatching(/mention\.created only/) }]);
    }
    const bad = await createChat("teams", { eventTypes: ["mention.created"] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((e) => e.path)).toEqual(["format"]);
    const { id } = (await createChat("discord")).body.data as { id: string };
    const format = await h.call("update_webhook", { endpointId: id, format: "standard" }, w.owner.key);
    expect(format.status).toBe(400);
    expect(format.body.errors?.map((e) => e.path)).toEqual(["format"]);
    const rotate = await h.call("update_webhook", { endpointId: id, rotateSecret: true }, w.owner.key);
    expect(rotate.status).toBe(400);
    expect(rotate.body.errors?.map((e) => e.path)).toEqual(["rotateSecret"]);
  });

  it("refuses the same over MCP: an isError 400 naming format, and eventTypes for a chat format", async () => {
    const client = new Client({ name: "chat-formats-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${w.owner.key}` } } }));
    try {
      for (const [extra, field] of [
        [{ format: "teams", eventTypes: ["mention.created"] }, "format"],
        [{ format: "slack", eventTypes: ["*"] }, "eventTypes"],
      ] as const) {
        const result = await client.callTool({ name: "create_webhook", arguments: { projectId: chatProjectId, name: "Over MCP", url: slack.url, ...extra } });
        expect(result.isError).toBe(true);
        const problem = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { status: number; errors: Array<{ path: string }> };
        expect(problem).toMatchObject({ status: 400, errors: [{ path: field }] });
      }
      const made = await client.callTool({ name: "create_webhook", arguments: { projectId: chatProjectId, name: "Over MCP", url: slack.url, format: "slack" } });
      expect(made.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("answers a viewer 403, another workspace's project 404, a key without webhooks:write 403, and a replay the same endpoint", async () => {
    expect((await h.call("create_webhook", { projectId: w.projectId, name: "V", url: slack.url, format: "slack" }, w.viewer.key)).status).toBe(403);
    expect((await h.call("create_webhook", { projectId: w.strangerProjectId, name: "S", url: slack.url, format: "slack" }, w.owner.key)).status).toBe(404);
    const readOnly = await h.keyFor(w.owner, ["webhooks:read"]);
    expect((await createChat("slack", {}, readOnly)).status).toBe(403);
    const first = await createChat("discord", {}, w.owner.key, { idempotencyKey: "chat-replay-1" });
    const again = await createChat("discord", {}, w.owner.key, { idempotencyKey: "chat-replay-1" });
    expect(again.status).toBe(first.status);
    expect(again.body.data).toEqual(first.body.data);
  });

  it("posts test_webhook's test message to Slack and a new mention to Discord as an embed", async () => {
    const slackHook = (await createChat("slack")).body.data as { id: string };
    const before = slack.messages.length;
    expect((await h.call("test_webhook", { endpointId: slackHook.id }, w.owner.key)).status).toBe(202);
    await waitFor(() => slack.messages.length > before, 10_000);
    expect(slack.messages[before]).toMatchObject({ text: expect.stringMatching(new RegExp(`^Earshot test message from project ${chatProjectId}`)) });

    const discordHook = (await createChat("discord")).body.data as { id: string };
    const { mentions } = await keywordWithMentions(h, w.owner, chatProjectId, 1);
    await waitFor(() => discord.messages.some((m) => JSON.stringify(m).includes(mentions[0]!.url)), 15_000);
    const message = discord.messages.find((m) => JSON.stringify(m).includes(mentions[0]!.url)) as { embeds: Array<Record<string, unknown>> };
    expect(message.embeds[0]).toMatchObject({ url: mentions[0]!.url, footer: { text: "Earshot" }, fields: expect.arrayContaining([expect.objectContaining({ name: "Sentiment" })]) });
    let log: Array<{ id: string; status: string }> = [];
    await waitFor(async () => {
      log = (await h.call("list_webhook_deliveries", { endpointId: discordHook.id }, w.owner.key)).body.data as typeof log;
      return log.some((d) => d.status === "succeeded");
    }, 10_000);
    const detail = await h.call("get_webhook_delivery", { endpointId: discordHook.id, deliveryId: log[0]!.id }, w.owner.key);
    expect(detail.body.data).toMatchObject({ eventType: "mention.created", attemptLog: [{ statusCode: 204 }] });
    expect(JSON.stringify(detail.body)).not.toContain(discord.url);
  });
});
