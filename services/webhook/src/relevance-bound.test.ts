import { refusalOf, testProjectCaller } from "@earshot/platform/testing";
import { type DeliveryWorld, openDeliveryWorld } from "./delivery-test-support";
import { createWebhook, getWebhook, updateWebhook } from "./domain/endpoints";
import { toWebhookMessage } from "./rpc/webhook-rpc";

// An endpoint's minRelevance: mention.created goes out only for mentions whose score (as the event carries
// it) is at least the bound, an unscored mention counting as 0.5; other event types are not bounded.

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

const mention = (id: string, score?: number) => ({
  id,
  projectId: "prj_a",
  workspaceId: "wsp_1",
  text: "Acme",
  relevance: score === undefined ? null : { score, label: "uncertain", reasons: [], model: "m1" },
});

const delivered = async (endpointId: string) => (await world.collections.deliveries.find({ endpointId })).map((d) => (JSON.parse(d.body) as { data: { id: string } }).data.id).sort();

it("keeps, shows and clears the bound; refuses one outside 0..1 naming minRelevance; editors only, own workspace only; a replay makes one endpoint", async () => {
  const input = { projectId: "prj_a", name: "Signal", url: "https://hooks.example.com/signal", eventTypes: ["mention.created"], minRelevance: 0.6 };
  const { endpoint } = await createWebhook(world.api, owner, input, "idem-relevance-1");
  expect(endpoint.minRelevance).toBe(0.6);
  expect((await createWebhook(world.api, owner, input, "idem-relevance-1")).endpoint._id).toBe(endpoint._id);
  expect(toWebhookMessage(await getWebhook(world.api, owner, endpoint._id)).minRelevance).toBe(0.6);
  expect(await refusal(createWebhook(world.api, owner, { ...input, minRelevance: 2 }))).toEqual({ code: "validation_failed", errors: ["minRelevance"] });
  expect(await refusal(updateWebhook(world.api, owner, endpoint._id, { minRelevance: -0.5 }))).toEqual({ code: "validation_failed", errors: ["minRelevance"] });
  expect((await refusal(updateWebhook(world.api, viewer, endpoint._id, { minRelevance: 0.9 }))).code).toBe("forbidden");
  expect((await refusal(updateWebhook(world.api, stranger, endpoint._id, { minRelevance: 0.9 }))).code).toBe("not_found");
  expect((await updateWebhook(world.api, owner, endpoint._id, { minRelevance: 0.8 })).endpoint.minRelevance).toBe(0.8);
  const cleared = (await updateWebhook(world.api, owner, endpoint._id, { minRelevance: 0 })).endpoint;
  expect(cleared.minRelevance).toBeUndefined();
  expect(toWebhookMessage(cleared).minRelevance).toBeUndefined();
});

it("delivers mention.created only at or above the bound (unscored as 0.5), and other event types whatever the bound", async () => {
  const bounded = await world.endpoint({ url: "https://hooks.example.com/bounded", workspaceId: "wsp_1", projectId: "prj_a", eventTypes: ["*"] });
  await world.collections.endpoints.updateOne({ _id: bounded.id }, { $set: { minRelevance: 0.6 } });
  const lenient = await world.endpoint({ url: "https://hooks.example.com/lenient", workspaceId: "wsp_1", projectId: "prj_a", eventTypes: ["*"] });
  await world.collections.endpoints.updateOne({ _id: lenient.id }, { $set: { minRelevance: 0.5 } });
  const open = await world.endpoint({ url: "https://hooks.example.com/open", workspaceId: "wsp_1", projectId: "prj_a", eventTypes: ["mention.created"] });
  await world.publish("mention.created", mention("men_high", 0.9));
  await world.publish("mention.created", mention("men_edge", 0.6));
  await world.publish("mention.created", mention("men_low", 0.2));
  await world.publish("mention.created", mention("men_unscored"));
  await world.publish("mention.updated", mention("men_low", 0.2));
  expect(await delivered(bounded.id)).toEqual(["men_edge", "men_high", "men_low"]);
  const boundedTypes = (await world.collections.deliveries.find({ endpointId: bounded.id })).map((d) => d.eventType).sort();
  expect(boundedTypes).toEqual(["mention.created", "mention.created", "mention.updated"]);
  expect(await delivered(lenient.id)).toEqual(["men_edge", "men_high", "men_low", "men_unscored"]);
  expect(await delivered(open.id)).toEqual(["men_edge", "men_high", "men_low", "men_unscored"]);
});
