import { newId, systemClock } from "@earshot/platform";
import { testProjectCaller, waitFor } from "@earshot/platform/testing";
import { type ChatFake, discordRateLimited, slackRateLimited, startDiscordFake, startSlackFake } from "./chat-fakes-test-support";
import { SLACK_INTERVAL_MS } from "./chat/provider";
import { type DeliveryWorld, openDeliveryWorld } from "./delivery-test-support";
import { fanOutBatch } from "./domain/fan-out";
import { redeliver } from "./domain/deliveries";
import { createWebhook, testWebhook } from "./domain/endpoints";
import type { DeliverableEvent } from "./fields";
import type { DeliveryDoc } from "./store";

// Chat endpoints end to end on a started worker with the services' real clock: mention.created events fanned
// out to Slack and Discord fakes written from the providers' documentation (chat-fakes-test-support.ts),
// which check every request's JSON and answer as the providers do. Pacing is asserted on the fakes'
// recorded arrival times; the test waits on the deliveries' states, never on sleeps.

let world: DeliveryWorld;
let slack: ChatFake;
let discord: ChatFake;

beforeAll(async () => {
  slack = await startSlackFake();
  discord = await startDiscordFake();
  world = await openDeliveryWorld({ clock: systemClock, sender: { ca: slack.receiver.ca }, schedule: [0, 0.2, 60], apiAllowsPrivateNetworks: true });
  world.worker.start();
});

afterAll(async () => {
  await world?.worker.stop();
  await world?.close();
  await slack?.close();
  await discord?.close();
});

afterEach(() => {
  expect(slack.problems).toEqual([]);
  expect(discord.problems).toEqual([]);
});

let seq = 0;
const context = { workspaceId: "wsp_test", keywords: [{ id: "kw_1", value: "acme", groupId: "kwg_1" }], groups: [{ id: "kwg_1", name: "My brand" }] };

/** A mention.created event carrying its mention as the API presents it (payloads.ts makes the real ones). */
const mentionEvent = (projectId: string, text = "Loving the new acme release"): DeliverableEvent => {
  const n = ++seq;
  const now = new Date().toISOString();
  const data = {
    id: `men_${n}`,
    projectId,
    source: "reddit",
    sourceId: `t3_${n}`,
    url: `https://www.reddit.com/r/acme/comments/${n}/`,
    title: null,
    text: `${text} (${n})`,
    author: { id: `t2_${n}`, handle: "ada", name: "Ada Lovelace", url: null, followers: null },
    publishedAt: now,
    sentiment: { label: n % 3 === 0 ? "negative" : "positive", score: 0.5, method: "lexicon" },
    keywordIds: ["kw_1"],
  };
  return { id: newId("evt"), type: "mention.created", time: now, data: { workspaceId: "wsp_test", projectId }, body: () => ({ data, context }) };
};

const deliveriesOf = (endpointId: string) => world.collections.deliveries.find({ endpointId });
const settled = async (endpointId: string, count: number, status: DeliveryDoc["status"] = "succeeded"): Promise<DeliveryDoc[]> => {
  let found: DeliveryDoc[] = [];
  await waitFor(async () => {
    found = await deliveriesOf(endpointId);
    return found.length === count && found.every((d) => d.status === status);
  }, 10_000);
  return found;
};

/** The post links a fake's messages carried, from `from` on: Slack's Open buttons, Discord's embed urls. */
const slackLinks = (from = 0) =>
  slack.messages.slice(from).flatMap((m) => (m as { blocks: Array<{ accessory?: { url: string } }> }).blocks.flatMap((b) => (b.accessory ? [b.accessory.url] : [])));
const discordLinks = (messages: unknown[]) => messages.flatMap((m) => (m as { embeds: Array<{ url?: string }> }).embeds.map((e) => e.url));

const newEndpoint = async (fake: ChatFake, format: "slack" | "discord", projectId: string) =>
  (await world.endpoint({ url: `${fake.url}?${projectId}`, projectId, format })).id;

it("sends a burst of mentions to Slack as a few messages of up to 10, a second apart, each mention once", async () => {
  const endpointId = await newEndpoint(slack, "slack", "prj_burst");
  const before = slack.receiver.received.length;
  const events = Array.from({ length: 12 }, () => mentionEvent("prj_burst"));
  await fanOutBatch(world.deps, events);
  const log = await settled(endpointId, 12);
  const got = slack.receiver.received.slice(before);
  expect(got).toHaveLength(2);
  expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(SLACK_INTERVAL_MS);
  const links = slackLinks(before);
  expect(links).toHaveLength(12);
  expect(new Set(links)).toEqual(new Set(events.map((e) => (e.body().data as { url: string }).url)));
  expect((slack.messages[before] as { text: string }).text).toMatch(/^10 new mentions\nNew mention by Ada Lovelace \(@ada\) on Reddit: /);
  // Each mention keeps its own row in the log: one attempt, Slack's answer, its own message as the body.
  for (const d of log) {
    expect(d.attempts.map((a) => [a.statusCode, a.response])).toEqual([[200, "ok"]]);
    expect(d.chat).toBe("slack");
    expect(JSON.parse(d.body)).toMatchObject({ blocks: [{ type: "section" }, { type: "context" }] });
    expect(d.charged).toBe(true);
  }
  // Each mention delivered counts once against the day's budget.
  expect((await world.collections.budgets.find({ workspaceId: "wsp_test" })).reduce((n, b) => n + b.used, 0)).toBeGreaterThanOrEqual(12);
});

it("waits out Slack's 429 for its Retry-After, without spending a step of the schedule, then delivers", async () => {
  const endpointId = await newEndpoint(slack, "slack", "prj_slack429");
  const before = slack.receiver.received.length;
  slack.script(slackRateLimited(1));
  await fanOutBatch(world.deps, [mentionEvent("prj_slack429")]);
  const [d] = await settled(endpointId, 1);
  const got = slack.receiver.received.slice(before);
  expect(got).toHaveLength(2);
  expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1000);
  expect(d!.attempts.map((a) => a.statusCode)).toEqual([429, 200]);
  expect(d!.step).toBe(1);
});

it("honours Discord's retry_after: the next request comes no sooner, and the mentions it carried succeed", async () => {
  const endpointId = await newEndpoint(discord, "discord", "prj_discord429");
  const before = discord.receiver.received.length;
  discord.script(discordRateLimited(0.4));
  await fanOutBatch(world.deps, [mentionEvent("prj_discord429"), mentionEvent("prj_discord429"), mentionEvent("prj_discord429")]);
  const log = await settled(endpointId, 3);
  const got = discord.receiver.received.slice(before);
  expect(got).toHaveLength(2);
  expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(400);
  // The same three mentions went again, in one message.
  expect(discordLinks(discord.messages.slice(before + 1))).toEqual(discordLinks(discord.messages.slice(before, before + 1)));
  expect(discordLinks(discord.messages.slice(before + 1))).toHaveLength(3);
  for (const d of log) expect(d.attempts.map((a) => a.statusCode)).toEqual([429, 204]);
});

it("waits for Discord's bucket to reset when a success says none is left", async () => {
  const endpointId = await newEndpoint(discord, "discord", "prj_bucket");
  const before = discord.receiver.received.length;
  discord.script({ status: 204, headers: { "x-ratelimit-limit": "5", "x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "0.3", "x-ratelimit-bucket": "test" } });
  await fanOutBatch(world.deps, [mentionEvent("prj_bucket")]);
  await settled(endpointId, 1);
  await fanOutBatch(world.deps, [mentionEvent("prj_bucket")]);
  await settled(endpointId, 2);
  const got = discord.receiver.received.slice(before);
  expect(got).toHaveLength(2);
  expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(300);
});

it("keeps Discord messages within 10 embeds and 6000 characters when long mentions pile up", async () => {
  const endpointId = await newEndpoint(discord, "discord", "prj_long");
  const before = discord.messages.length;
  const events = Array.from({ length: 12 }, () => mentionEvent("prj_long", "a long post about acme ".repeat(40)));
  await fanOutBatch(world.deps, events);
  await settled(endpointId, 12);
  const sent = discord.messages.slice(before);
  // 6000 characters hold 7 of these, not 10 (the fake refuses a message over either bound).
  expect(sent.map((m) => (m as { embeds: unknown[] }).embeds.length)).toEqual([7, 5]);
  const links = discordLinks(sent);
  expect(links).toHaveLength(12);
  expect(new Set(links).size).toBe(12);
});

it("fails a delivery at once when Slack says the webhook is gone (404 no_service) or Discord says Unknown Webhook", async () => {
  const slackId = await newEndpoint(slack, "slack", "prj_gone");
  const discordId = await newEndpoint(discord, "discord", "prj_gone");
  slack.script({ status: 404, body: "no_service" });
  discord.script({ status: 404, body: JSON.stringify({ message: "Unknown Webhook", code: 10015 }), headers: { "content-type": "application/json" } });
  await fanOutBatch(world.deps, [mentionEvent("prj_gone")]);
  const [s] = await settled(slackId, 1, "failed");
  const [d] = await settled(discordId, 1, "failed");
  expect(s!.attempts.map((a) => [a.statusCode, a.response])).toEqual([[404, "no_service"]]);
  expect(d!.attempts.map((a) => a.statusCode)).toEqual([404]);
  // The failing-endpoint rule counts it: 5 days of this and the endpoint is turned off.
  expect((await world.collections.endpoints.findById(slackId))?.failingSince).toBeInstanceOf(Date);
  // Once the channel is back, a redelivery sends the same message again.
  await redeliver(world.api, testProjectCaller({ prj_gone: "editor" }, { workspaceId: "wsp_test" }), slackId, s!._id);
  world.worker.wake();
  const [again] = await settled(slackId, 1);
  expect(again!.attempts.map((a) => a.statusCode)).toEqual([404, 200]);
  expect(JSON.parse(slack.receiver.received.at(-1)!.body)).toEqual(JSON.parse(s!.body));
});

it("retries a 5xx on the schedule, as for any endpoint", async () => {
  const endpointId = await newEndpoint(slack, "slack", "prj_5xx");
  slack.script({ status: 500, body: "rollup_error" });
  await fanOutBatch(world.deps, [mentionEvent("prj_5xx")]);
  const [d] = await settled(endpointId, 1);
  expect(d!.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
});

it("never writes the URL, the endpoint's secret, into the log: a refused redirect quotes it masked", async () => {
  const endpointId = await newEndpoint(slack, "slack", "prj_redirect");
  slack.script({ status: 302, headers: { location: "https://elsewhere.example/" } });
  await fanOutBatch(world.deps, [mentionEvent("prj_redirect")]);
  const [d] = await settled(endpointId, 1);
  expect(d!.attempts[0]?.error).toMatch(/redirects/);
  expect(d!.attempts[0]?.error).toContain(`https://localhost:${slack.receiver.port}/…`);
  expect(JSON.stringify(d)).not.toContain("xoxTestToken");
});

it("sends test_webhook's test message to a chat endpoint the API made, unsigned", async () => {
  const owner = testProjectCaller({ prj_test: "owner" }, { workspaceId: "wsp_test" });
  const { endpoint, secret } = await createWebhook(world.api, owner, { projectId: "prj_test", name: "Brand alerts", url: `${slack.url}?test`, format: "slack" });
  expect(secret).toBeUndefined();
  expect(endpoint).toMatchObject({ format: "slack", eventTypes: ["mention.created"], secrets: [] });
  const before = slack.receiver.received.length;
  await testWebhook(world.api, owner, endpoint._id);
  // The API's deployable does not wake the worker (within a second it ticks anyway): this one is at hand.
  world.worker.wake();
  await settled(endpoint._id, 1);
  const got = slack.receiver.received[before]!;
  expect(got.headers["webhook-signature"]).toBeUndefined();
  expect(JSON.parse(got.body)).toMatchObject({ text: 'Earshot test message from project prj_test (endpoint "Brand alerts"). New mentions will arrive here.' });
});

describe("several delivery replicas", () => {
  it("send one request at a time to a chat endpoint, and keep the provider's pace between them", async () => {
    // Replicas over one store, ticked by hand on a manual clock: the endpoint's turn is in the store, not in a worker.
    const shared = await openDeliveryWorld({ sender: { ca: slack.receiver.ca } });
    try {
      const [a, b] = [shared.replica(), shared.replica()];
      const { id } = await shared.endpoint({ url: `${slack.url}?replicas`, projectId: "prj_replicas", format: "slack" });
      const before = slack.receiver.received.length;
      await fanOutBatch(shared.deps, [mentionEvent("prj_replicas"), mentionEvent("prj_replicas"), mentionEvent("prj_replicas")]);
      await Promise.all([a.worker.tick(), b.worker.tick()]);
      expect(slack.receiver.received.length - before).toBe(1);
      expect(slackLinks(before)).toHaveLength(3);

      // The next mention, on the other replica at once: Slack's second has not passed, so it waits for it.
      const sentAt = shared.clock.now().getTime();
      await fanOutBatch(shared.deps, [mentionEvent("prj_replicas")]);
      expect(await b.worker.tick()).toBe(0);
      const [waiting] = await shared.collections.deliveries.find({ endpointId: id, status: "pending" });
      expect(waiting?.nextAttemptAt?.getTime()).toBeGreaterThanOrEqual(sentAt + SLACK_INTERVAL_MS);
      shared.clock.advance(SLACK_INTERVAL_MS);
      expect(await b.worker.tick()).toBe(1);
      expect(slack.receiver.received.length - before).toBe(2);
      expect((await shared.collections.deliveries.find({ endpointId: id })).map((d) => d.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    } finally {
      await shared.close();
    }
  });
});
