import { Webhook } from "standardwebhooks";
import type { AccountEvent } from "@earshot/contracts/events";
import { type CloudEvent, type Write } from "@earshot/platform";
import { testProjectCaller } from "@earshot/platform/testing";
import { deliverableOf, newTestSecret, openDeliveryWorld, type DeliveryWorld } from "./delivery-test-support";
import { FAILING_LIMIT_MS } from "./domain/attempt";
import { workspaceUsage } from "./domain/budget";
import { getDelivery, redeliver } from "./domain/deliveries";
import { deleteWebhook, getWebhook, testWebhook } from "./domain/endpoints";
import { fanOutBatch } from "./domain/fan-out";
import { handleAccountEvent } from "./domain/workspaces";
import { type Received, type Receiver, startReceiver } from "./receiver-test-support";
import { DELIVERIES } from "./store";

// Deliveries to a real HTTPS receiver (a certificate from a CA made for the test, which the sender is told
// to trust), each verified with the `standardwebhooks` library as a receiver would; and the webhook API's
// verbs over the same store, reading what the worker wrote.

/** The owner of the test world's workspace, as the edge resolves them. */
const owner = testProjectCaller({}, { workspaceId: "wsp_test" });

/** The commits since `before` that wrote a delivery, each as its delivery writes. */
const deliveryCommits = (world: DeliveryWorld, before: number): Write[][] =>
  world.commits.slice(before).map((c) => c.filter((w) => w.collection === DELIVERIES)).filter((c) => c.length > 0);

const again = (event: CloudEvent) => fanOutBatch(world.deps, [deliverableOf(event)]);

const headersOf = (r: Received): Record<string, string> => ({
  "webhook-id": String(r.headers["webhook-id"]),
  "webhook-timestamp": String(r.headers["webhook-timestamp"]),
  "webhook-signature": String(r.headers["webhook-signature"]),
});

const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, headersOf(r)) as { type: string; timestamp: string; data: Record<string, unknown> };

const mention = (workspaceId = "wsp_test", projectId = "prj_a") => ({
  mentionId: "men_1",
  projectId,
  workspaceId,
  source: "reddit",
  text: "Acme is great",
  status: "open",
});

let receiver: Receiver;
let world: DeliveryWorld;

beforeEach(async () => {
  receiver = await startReceiver();
  world = await openDeliveryWorld({ sender: { ca: receiver.ca, timeoutMs: 1_500 } });
});

afterEach(async () => {
  await world.worker.stop();
  await world.close();
  await receiver.close();
});

const deliveryOf = async (eventId: string) => {
  const d = await world.collections.deliveries.findOne({ eventId });
  if (!d) throw new Error(`no delivery of ${eventId}`);
  return d;
};

describe("delivery to an HTTPS receiver", () => {
  it("sends a matching event signed so that standardwebhooks verifies it, with the payload and headers of Standard Webhooks", async () => {
    const { secrets } = await world.endpoint({ url: receiver.url, eventTypes: ["mention.created"] });
    const event = await world.publish("mention.created", mention());
    expect(await world.worker.tick()).toBe(1);
    const [got] = await receiver.waitFor(1);
    const payload = verify(secrets[0] as string, got as Received);
    expect(payload).toEqual({ type: "mention.created", timestamp: event.time, data: mention() });
    expect(got?.headers["webhook-id"]).toBe(event.id);
    expect(got?.headers["user-agent"]).toMatch(/^Earshot-Webhooks\/\d+\.\d+\.\d+/);
    expect(got?.headers["content-type"]).toBe("application/json");
    const delivery = await deliveryOf(event.id);
    expect(delivery).toMatchObject({ status: "succeeded", eventType: "mention.created", attempts: [{ statusCode: 200, response: "ok", error: "" }] });
    // The log keeps the headers sent, never the signature.
    expect(delivery.headers).toMatchObject({ "webhook-id": event.id });
    expect(delivery.headers["webhook-signature"]).toBeUndefined();
  });

  it("sends only what an endpoint's scope and event types match", async () => {
    await world.endpoint({ url: receiver.url, eventTypes: ["keyword.created"] });
    await world.endpoint({ url: receiver.url, projectId: "prj_other", eventTypes: ["*"] });
    await world.endpoint({ url: receiver.url, workspaceId: "wsp_other", eventTypes: ["*"] });
    await world.publish("mention.created", mention());
    expect(await world.worker.tick()).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });

  it("sends a test event to exactly the endpoint named, whatever its event types", async () => {
    const target = await world.endpoint({ url: receiver.url, eventTypes: ["keyword.created"] });
    await world.endpoint({ url: receiver.url, eventTypes: ["*"] });
    const { eventId } = await testWebhook(world.api, owner, target.id);
    expect(await world.worker.tick()).toBe(1);
    const [got] = await receiver.waitFor(1);
    expect(verify(target.secrets[0] as string, got as Received)).toMatchObject({ type: "webhook.test", data: { endpointId: target.id } });
    expect(got?.headers["webhook-id"]).toBe(eventId);
  });

  it("signs with both secrets during a rotation, so either verifies", async () => {
    const [oldSecret, newSecret] = [newTestSecret(), newTestSecret()];
    await world.endpoint({ url: receiver.url, secrets: [newSecret, oldSecret] });
    await world.publish("mention.created", mention());
    await world.worker.tick();
    const [got] = await receiver.waitFor(1);
    expect(String(got?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(oldSecret, got as Received).type).toBe("mention.created");
    expect(verify(newSecret, got as Received).type).toBe("mention.created");
    expect(() => verify(newTestSecret(), got as Received)).toThrow();
  });

  it("retries a 500 on the schedule with the same webhook-id, and delivers once the receiver comes back", async () => {
    const { secrets } = await world.endpoint({ url: receiver.url });
    receiver.answer({ status: 500, body: "down" });
    const event = await world.publish("mention.created", mention());
    await world.worker.tick();
    expect(await deliveryOf(event.id)).toMatchObject({ status: "retrying", attempts: [{ statusCode: 500, response: "down" }] });
    // Not due before the schedule's next delay (1 s)…
    world.clock.advance(999);
    expect(await world.worker.tick()).toBe(0);
    world.clock.advance(1);
    expect(await world.worker.tick()).toBe(1);
    receiver.answer({ status: 204 });
    world.clock.advance(2_000);
    expect(await world.worker.tick()).toBe(1);
    const got = await receiver.waitFor(3);
    expect(new Set(got.map((r) => r.headers["webhook-id"]))).toEqual(new Set([event.id]));
    for (const r of got) expect(verify(secrets[0] as string, r).type).toBe("mention.created");
    expect(await deliveryOf(event.id)).toMatchObject({ status: "succeeded", attempts: [{ statusCode: 500 }, { statusCode: 500 }, { statusCode: 204 }] });
  });

  it("counts a receiver that does not answer in time as a failure, and fails the delivery when the schedule runs out", async () => {
    await world.endpoint({ url: receiver.url });
    receiver.answer("hang");
    const event = await world.publish("mention.created", mention());
    for (const wait of [0, 1_000, 2_000]) {
      world.clock.advance(wait);
      expect(await world.worker.tick()).toBe(1);
    }
    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("failed");
    expect(delivery.attempts.map((a) => [a.statusCode, a.error])).toEqual([
      [0, "timed out: no answer within 1.5 s"],
      [0, "timed out: no answer within 1.5 s"],
      [0, "timed out: no answer within 1.5 s"],
    ]);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([event.id]));
  });

  it("redelivers a failed delivery: the same body under the same webhook-id", async () => {
    const { id, secrets } = await world.endpoint({ url: receiver.url });
    receiver.answer({ status: 410 });
    const event = await world.publish("mention.created", mention());
    for (const wait of [0, 1_000, 2_000]) {
      world.clock.advance(wait);
      await world.worker.tick();
    }
    const failed = await deliveryOf(event.id);
    expect(failed.status).toBe("failed");
    receiver.answer({ status: 200 });
    expect(await redeliver(world.api, owner, id, failed._id)).toMatchObject({ status: "pending", attempts: failed.attempts });
    expect(await world.worker.tick()).toBe(1);
    const got = await receiver.waitFor(4);
    const last = got[3] as Received;
    expect(last.headers["webhook-id"]).toBe(event.id);
    expect(last.body).toBe(got[0]?.body);
    expect(verify(secrets[0] as string, last).type).toBe("mention.created");
    expect(await deliveryOf(event.id)).toMatchObject({ status: "succeeded" });
  });

  it("refuses a redirect without following it", async () => {
    await world.endpoint({ url: receiver.url });
    receiver.answer({ status: 302 });
    const event = await world.publish("mention.created", mention());
    await world.worker.tick();
    expect((await deliveryOf(event.id)).attempts[0]).toMatchObject({ statusCode: 0, error: expect.stringMatching(/redirects/) });
    expect(receiver.received).toHaveLength(1);
  });

  it("shows the API's delivery log the delivery the worker wrote, with the request but never the signature, and publishes nothing", async () => {
    const { id } = await world.endpoint({ url: receiver.url });
    const event = await world.publish("mention.created", mention());
    const made = await deliveryOf(event.id);
    expect(await getDelivery(world.api, owner, id, made._id)).toMatchObject({ status: "pending", attempts: [] });
    await world.worker.tick();
    const logged = await getDelivery(world.api, owner, id, made._id);
    expect(logged).toMatchObject({ status: "succeeded", body: receiver.received[0]?.body, headers: { "webhook-id": event.id } });
    expect(JSON.stringify(logged)).not.toMatch(/webhook-signature|whsec_/);
    expect(await world.events()).toEqual([]);
  });
});

describe("the daily delivery budget", () => {
  it("holds the delivery past the budget and sends it after the UTC day turns", async () => {
    await world.endpoint({ url: receiver.url, dailyBudget: 2 });
    const events = [];
    for (let i = 0; i < 3; i++) events.push(await world.publish("mention.created", { ...mention(), mentionId: `men_${i}` }));
    // Two at once per endpoint: the third goes in the next tick.
    await world.worker.tick();
    await world.worker.tick();
    expect(receiver.received).toHaveLength(2);
    const held = await deliveryOf(events[2]!.id);
    expect(held.status).toBe("held");
    const midnight = new Date(world.clock.now());
    midnight.setUTCHours(24, 0, 0, 0);
    expect(held.nextAttemptAt).toEqual(midnight);
    world.clock.set(new Date(midnight.getTime() - 1));
    expect(await world.worker.tick()).toBe(0);
    world.clock.set(midnight);
    expect(await world.worker.tick()).toBe(1);
    expect(await deliveryOf(events[2]!.id)).toMatchObject({ status: "succeeded", budgetDay: midnight.toISOString().slice(0, 10) });
  });
});

describe("fan-out to several endpoints", () => {
  it("makes one delivery per matching endpoint in one commit, each sent once", async () => {
    const endpoints = await Promise.all([0, 1, 2].map(() => world.endpoint({ url: receiver.url, eventTypes: ["mention.created"] })));
    const before = world.commits.length;
    const event = await world.publish("mention.created", mention());
    const deliveries = await world.collections.deliveries.find({ eventId: event.id });
    expect(deliveries.map((d) => d.endpointId).sort()).toEqual(endpoints.map((e) => e.id).sort());
    expect(deliveryCommits(world, before).map((c) => c.length)).toEqual([3]);
    while ((await world.worker.tick()) > 0);
    expect(receiver.received).toHaveLength(3);
    // Made, claimed (with the budget) and recorded: three writes of each delivery, and nothing else.
    const writesOf = (id: string) => deliveryCommits(world, before).flat().filter((w) => (w.kind === "delete" ? w.id : w.doc._id) === id).length;
    expect(deliveries.map((d) => writesOf(d._id))).toEqual([3, 3, 3]);
  });

  it("handles an event again without a second delivery, and still makes the one an endpoint added since lacks", async () => {
    await world.endpoint({ url: receiver.url, eventTypes: ["mention.created"] });
    const event = await world.publish("mention.created", mention());
    const added = await world.endpoint({ url: receiver.url, eventTypes: ["mention.created"] });
    // The bus hands the same event over again (at-least-once).
    await again(event);
    await again(event);
    const deliveries = await world.collections.deliveries.find({ eventId: event.id });
    expect(deliveries).toHaveLength(2);
    expect(deliveries.map((d) => d.endpointId)).toContain(added.id);
  });
});

describe("fan-out in batches", () => {
  it("makes each event's deliveries once when a batch holds a repeat and is handed over again", async () => {
    await Promise.all([0, 1].map(() => world.endpoint({ url: receiver.url, eventTypes: ["mention.created"] })));
    const first = await world.publish("mention.created", { ...mention(), mentionId: "men_a" });
    const event = (id: string) => ({ ...first, id, data: { ...mention(), mentionId: id } });
    const batch = [event("evt_b1"), event("evt_b2"), event("evt_b1"), first];
    const before = world.commits.length;
    await fanOutBatch(world.deps, batch.map(deliverableOf));
    // The whole batch again, as after a failure before it was recorded as handled.
    await fanOutBatch(world.deps, batch.map(deliverableOf));
    expect(deliveryCommits(world, before).map((c) => c.length)).toEqual([4]);
    for (const id of [first.id, "evt_b1", "evt_b2"]) expect(await world.collections.deliveries.find({ eventId: id })).toHaveLength(2);
    while ((await world.worker.tick()) > 0);
    expect(receiver.received).toHaveLength(6);
    expect(new Set(receiver.received.map((r) => `${r.headers["webhook-id"]}`)).size).toBe(3);
  });
});

describe("the worker in batches", () => {
  it("claims what fits its slots in one go, a few per endpoint, and records every outcome", async () => {
    const endpoints = await Promise.all([0, 1].map(() => world.endpoint({ url: receiver.url, eventTypes: ["mention.created"] })));
    for (let i = 0; i < 9; i++) await world.publish("mention.created", { ...mention(), mentionId: `men_${i}` });
    // Eight attempts at once per endpoint: a tick starts 16 of the 18 deliveries.
    expect(await world.worker.tick()).toBe(16);
    let total = 16;
    for (let n = await world.worker.tick(); n > 0; n = await world.worker.tick()) total += n;
    expect(total).toBe(18);
    const deliveries = await world.collections.deliveries.find({});
    expect(deliveries.map((d) => d.status)).toEqual(Array(18).fill("succeeded"));
    expect(deliveries.every((d) => d.attempts.length === 1 && d._v === 3)).toBe(true);
    expect(new Set(deliveries.map((d) => d.endpointId))).toEqual(new Set(endpoints.map((e) => e.id)));
    expect(receiver.received).toHaveLength(18);
  });

  it("drops only the outcome of a delivery redelivered during its attempt, recording the others of its round", async () => {
    await world.endpoint({ url: receiver.url, eventTypes: ["mention.created"] });
    const first = await world.publish("mention.created", { ...mention(), mentionId: "men_0" });
    const second = await world.publish("mention.created", { ...mention(), mentionId: "men_1" });
    const target = await deliveryOf(first.id);
    // Reset the delivery while its attempt is on the wire.
    const send = world.deps.send;
    world.deps.send = async (request) => {
      if (request.headers["webhook-id"] === first.id) {
        await redeliver(world.api, owner, target.endpointId, target._id);
      }
      return send(request);
    };
    try {
      expect(await world.worker.tick()).toBe(2);
    } finally {
      world.deps.send = send;
    }
    expect(await deliveryOf(second.id)).toMatchObject({ status: "succeeded" });
    expect(await deliveryOf(first.id)).toMatchObject({ status: "pending", attempts: [] });
  });
});

describe("several instances on one store", () => {
  it("deliver each event once", async () => {
    await world.endpoint({ url: receiver.url });
    const others = [world.replica(), world.replica()];
    for (let i = 0; i < 6; i++) await world.publish("mention.created", { ...mention(), mentionId: `men_${i}` });
    const workers = [world.worker, ...others.map((o) => o.worker)];
    // Every instance ticks at once until nothing is left; each attempt is claimed by one of them.
    while ((await Promise.all(workers.map((w) => w.tick()))).some((n) => n > 0));
    const statuses = (await world.collections.deliveries.find({})).map((d) => d.status);
    expect(statuses).toEqual(Array(6).fill("succeeded"));
    expect(receiver.received).toHaveLength(6);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(6);
  });

  it("retry a delivery whose attempt died with its instance once the claim ends", async () => {
    await world.endpoint({ url: receiver.url });
    const event = await world.publish("mention.created", mention());
    const delivery = await deliveryOf(event.id);
    // An instance claimed it and died before recording anything.
    await world.collections.deliveries.updateOne({ _id: delivery._id }, { $set: { nextAttemptAt: new Date(world.clock.now().getTime() + 60_000) } });
    expect(await world.worker.tick()).toBe(0);
    world.clock.advance(60_000);
    expect(await world.worker.tick()).toBe(1);
    expect(await deliveryOf(event.id)).toMatchObject({ status: "succeeded" });
  });
});

describe("failing endpoints and deactivated accounts", () => {
  const account = (type: "user.created" | "user.deactivated" | "user.reactivated", data: Record<string, string>): AccountEvent =>
    ({ specversion: "1.0", id: `evt_${type}`, source: "earshot/account", type, time: world.clock.now().toISOString(), datacontenttype: "application/json", data }) as unknown as AccountEvent;

  it("deactivates an endpoint failing for 5 days, shows it inactive for failing in the API, and emails the owner", async () => {
    await handleAccountEvent(world.deps, account("user.created", { userId: "usr_1", workspaceId: "wsp_test", email: "owner@example.com" }));
    const { id } = await world.endpoint({ url: receiver.url });
    receiver.answer({ status: 500 });
    await world.publish("mention.created", mention());
    await world.worker.tick();
    world.clock.advance(FAILING_LIMIT_MS);
    await world.publish("mention.created", { ...mention(), mentionId: "men_2" });
    await world.worker.tick();
    expect(await getWebhook(world.api, owner, id)).toMatchObject({ active: false, deactivatedReason: "failing" });
    expect(world.mail).toEqual([expect.objectContaining({ to: "owner@example.com", subject: expect.stringMatching(/failing webhook/) })]);
    // A workspace-wide endpoint has no page in the web app (a project's links to its own): the mail names the API.
    expect(world.mail[0]!.text).toContain("list_webhook_deliveries");
    expect(world.mail[0]!.text).not.toContain("/app/");
    // Nothing more goes to it.
    const sent = receiver.received.length;
    await world.publish("mention.created", { ...mention(), mentionId: "men_3" });
    world.clock.advance(10_000);
    await world.worker.tick();
    expect(receiver.received).toHaveLength(sent);
  });

  it("stops a deactivated owner's deliveries and resumes them on reactivation", async () => {
    await world.endpoint({ url: receiver.url });
    const pending = await world.publish("mention.created", mention());
    await handleAccountEvent(world.deps, account("user.deactivated", { userId: "usr_1", workspaceId: "wsp_test" }));
    await world.publish("mention.created", { ...mention(), mentionId: "men_while_off" });
    await world.worker.tick();
    expect(receiver.received).toHaveLength(0);
    await handleAccountEvent(world.deps, account("user.reactivated", { userId: "usr_1", workspaceId: "wsp_test" }));
    expect(await world.worker.tick()).toBe(1);
    expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([pending.id]);
  });
});

describe("the budget and the log through the API", () => {
  it("counts in get_usage exactly the deliveries made, read right after they are made", async () => {
    await world.endpoint({ url: receiver.url });
    for (let i = 0; i < 3; i++) await world.publish("mention.created", { ...mention(), mentionId: `men_${i}` });
    expect(await workspaceUsage(world.api, "wsp_test")).toEqual({ webhookDeliveriesPerDay: 0 });
    await world.worker.tick();
    expect(receiver.received).toHaveLength(3);
    expect(await workspaceUsage(world.api, "wsp_test")).toEqual({ webhookDeliveriesPerDay: 3 });
  });

  it("refuses test_webhook with 402 once the day's deliveries reach the allowance, and takes it again the next day", async () => {
    const { id } = await world.endpoint({ url: receiver.url });
    const small = testProjectCaller({}, { workspaceId: "wsp_test", allowances: { webhookDeliveriesPerDay: 2 } });
    await world.publish("mention.created", mention());
    await testWebhook(world.api, small, id);
    await world.worker.tick();
    expect(receiver.received).toHaveLength(2);
    await expect(testWebhook(world.api, small, id)).rejects.toMatchObject({ code: "usage_limited" });
    const midnight = new Date(world.clock.now());
    midnight.setUTCHours(24, 0, 0, 0);
    world.clock.set(midnight);
    expect((await testWebhook(world.api, small, id)).eventId).toMatch(/^evt_/);
  });

  it("deletes an endpoint's delivery history with it, and a delivery claimed meanwhile at its next claim", async () => {
    const { id } = await world.endpoint({ url: receiver.url });
    await world.publish("mention.created", mention());
    await world.worker.tick();
    const pending = await world.publish("mention.created", { ...mention(), mentionId: "men_2" });
    await deleteWebhook(world.api, owner, id);
    expect(await world.collections.deliveries.count({})).toBe(0);
    // A fan-out that read the endpoint before the delete made one more: the claim drops it unsent.
    await world.collections.deliveries.insertOne({ ...(await world.collections.deliveries.findOne({})), _id: "dlv_late", dedupeKey: `${id}:late`, endpointId: id, workspaceId: "wsp_test", eventId: pending.id, eventType: "mention.created", body: "{}", status: "pending", step: 0, attempts: [], createdAt: world.clock.now(), nextAttemptAt: world.clock.now(), charged: false, headers: {} });
    expect(await world.worker.tick()).toBe(0);
    expect(await world.collections.deliveries.count({})).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });
});
