import { refusalOf, testProjectCaller } from "@earshot/platform/testing";
import type { CloudEvent } from "@earshot/platform";
import { type DeliveryWorld, deliverableOf, openDeliveryWorld } from "./delivery-test-support";
import { fanOutBatch } from "./domain/fan-out";
import { createWebhook, getWebhook, updateWebhook } from "./domain/endpoints";
import { toWebhookMessage } from "./rpc/webhook-rpc";

// An endpoint's oncePerStory: mention.created goes out once per story, for its first copy to arrive that
// passes the endpoint's relevance bound, so an article shared on X and Reddit is delivered once, and a story
// whose first copy scored low still arrives by a better copy. Other event types are not collapsed.

let world: DeliveryWorld;
beforeAll(async () => {
  world = await openDeliveryWorld();
});
afterAll(async () => world?.close());

const owner = testProjectCaller({ prj_a: "owner" }, { workspaceId: "wsp_1" });
const stranger = testProjectCaller({ prj_z: "owner" }, { workspaceId: "wsp_2" });
const viewer = testProjectCaller({ prj_a: "viewer" }, { workspaceId: "wsp_1" });

/** A refusal's code and the fields it names. */
const refusal = async (run: Promise<unknown>) => {
  const err = await refusalOf(run);
  return { code: err.code, errors: err.errors.map((e) => e.path) };
};

const mention = (id: string, story: { id: string; size: number } | null, score = 0.9) => ({
  id,
  projectId: "prj_a",
  workspaceId: "wsp_1",
  text: "Acme",
  relevance: { score, label: "relevant", reasons: [], model: "m1" },
  story: story ? { ...story, firstMentionId: id } : null,
});

const delivered = async (endpointId: string) => (await world.collections.deliveries.find({ endpointId })).map((d) => (JSON.parse(d.body) as { data: { id: string } }).data.id).sort();

it("keeps, shows and clears oncePerStory; refuses a non-boolean naming it; editors only, own workspace only; a replay makes one endpoint", async () => {
  const input = { projectId: "prj_a", name: "Stories", url: "https://hooks.example.com/stories", eventTypes: ["mention.created"], oncePerStory: true };
  const { endpoint } = await createWebhook(world.api, owner, input, "idem-story-1");
  expect(endpoint.oncePerStory).toBe(true);
  expect((await createWebhook(world.api, owner, input, "idem-story-1")).endpoint._id).toBe(endpoint._id);
  expect(toWebhookMessage(await getWebhook(world.api, owner, endpoint._id)).oncePerStory).toBe(true);
  expect(await refusal(createWebhook(world.api, owner, { ...input, oncePerStory: "yes" as unknown as boolean }))).toEqual({ code: "validation_failed", errors: ["oncePerStory"] });
  expect((await refusal(updateWebhook(world.api, viewer, endpoint._id, { oncePerStory: false }))).code).toBe("forbidden");
  expect((await refusal(updateWebhook(world.api, stranger, endpoint._id, { oncePerStory: false }))).code).toBe("not_found");
  // Another change leaves it as it was; false clears it, stored as absent.
  expect((await updateWebhook(world.api, owner, endpoint._id, { minRelevance: 0.7 })).endpoint).toMatchObject({ oncePerStory: true, minRelevance: 0.7 });
  const cleared = (await updateWebhook(world.api, owner, endpoint._id, { oncePerStory: false })).endpoint;
  expect(cleared.oncePerStory).toBeUndefined();
  expect(cleared.minRelevance).toBe(0.7);
  expect(toWebhookMessage(cleared).oncePerStory).toBe(false);
});

it("delivers a story once, by its first copy to pass the bound; a mention without a story as its own", async () => {
  const once = await world.endpoint({ url: "https://hooks.example.com/once", workspaceId: "wsp_1", projectId: "prj_a", eventTypes: ["*"] });
  await world.collections.endpoints.updateOne({ _id: once.id }, { $set: { oncePerStory: true } });
  const onceBounded = await world.endpoint({ url: "https://hooks.example.com/once-bounded", workspaceId: "wsp_1", projectId: "prj_a", eventTypes: ["mention.created"] });
  await world.collections.endpoints.updateOne({ _id: onceBounded.id }, { $set: { oncePerStory: true, minRelevance: 0.65 } });
  const every = await world.endpoint({ url: "https://hooks.example.com/every", workspaceId: "wsp_1", projectId: "prj_a", eventTypes: ["mention.created"] });
  await world.publish("mention.created", mention("men_first", { id: "sto_1", size: 1 }));
  await world.publish("mention.created", mention("men_copy", { id: "sto_1", size: 2 }));
  await world.publish("mention.created", mention("men_alone", null));
  await world.publish("mention.created", mention("men_low_first", { id: "sto_2", size: 1 }, 0.2));
  await world.publish("mention.created", mention("men_high_copy", { id: "sto_2", size: 2 }, 0.9));
  await world.publish("mention.updated", mention("men_copy", { id: "sto_1", size: 2 }));
  expect(await delivered(once.id)).toEqual(["men_alone", "men_copy", "men_first", "men_low_first"]);
  expect((await world.collections.deliveries.find({ endpointId: once.id })).filter((d) => d.eventType === "mention.updated")).toHaveLength(1);
  // sto_2's first copy is under the bound: its better copy carries the story.
  expect(await delivered(onceBounded.id)).toEqual(["men_alone", "men_first", "men_high_copy"]);
  // A copy arriving later, however relevant, is not delivered again; an event handled twice is one delivery.
  await world.publish("mention.created", mention("men_late_copy", { id: "sto_2", size: 3 }, 0.95));
  expect(await delivered(onceBounded.id)).toEqual(["men_alone", "men_first", "men_high_copy"]);
  expect(await delivered(once.id)).toEqual(["men_alone", "men_copy", "men_first", "men_low_first"]);
  expect(await delivered(every.id)).toEqual(["men_alone", "men_copy", "men_first", "men_high_copy", "men_late_copy", "men_low_first"]);
});

it("keeps one copy of a story when its copies come in one batch, or in batches handled at once", async () => {
  const endpoint = await world.endpoint({ url: "https://hooks.example.com/batched", workspaceId: "wsp_1", projectId: "prj_a", eventTypes: ["mention.created"] });
  await world.collections.endpoints.updateOne({ _id: endpoint.id }, { $set: { oncePerStory: true, minRelevance: 0.5 } });
  let n = 0;
  const event = (id: string, story: string, score: number): CloudEvent =>
    ({ specversion: "1.0", id: `evt_batch_${(n += 1)}`, source: "earshot/test", type: "mention.created", time: world.clock.now().toISOString(), datacontenttype: "application/json", data: mention(id, { id: story, size: n }, score) }) as CloudEvent;
  await fanOutBatch(world.deps, [event("men_b_low", "sto_batch", 0.1), event("men_b_high", "sto_batch", 0.8), event("men_b_higher", "sto_batch", 0.9)].map(deliverableOf));
  expect(await delivered(endpoint.id)).toEqual(["men_b_high"]);
  // Two instances handling two copies of a new story at once: the store's unique story key keeps one.
  const [a, b] = [event("men_race_a", "sto_race", 0.9), event("men_race_b", "sto_race", 0.9)];
  await Promise.all([fanOutBatch(world.deps, [deliverableOf(a)]), fanOutBatch(world.replica().deps, [deliverableOf(b)])]);
  const raced = (await delivered(endpoint.id)).filter((id) => id.startsWith("men_race"));
  expect(raced).toHaveLength(1);
});
