import { Webhook } from "standardwebhooks";
import { testProjectCaller } from "@earshot/platform/testing";
import { openDeliveryWorld, type DeliveryWorld } from "./delivery-test-support";
import { createWebhook, testWebhook } from "./domain/endpoints";
import { type Receiver, startReceiver } from "./receiver-test-support";
import { guardedSender } from "./sender";

// Where the operator allows private networks (EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS), a developer tests
// with a plain http receiver on their machine: the endpoint is saved and its test event sent through the
// API's verbs, and the worker delivers it, signed as ever (verified with the standardwebhooks library). Plain http to a public
// address stays refused at delivery too, whatever the endpoint says.

const owner = testProjectCaller({}, { workspaceId: "wsp_test" });

let receiver: Receiver;
let world: DeliveryWorld;

beforeAll(async () => {
  receiver = await startReceiver({ plainHttp: true });
  world = await openDeliveryWorld({ apiAllowsPrivateNetworks: true });
});

afterAll(async () => {
  await world.worker.stop();
  await world.close();
  await receiver.close();
});

it("delivers to a plain http receiver on loopback, signed so that standardwebhooks verifies it", async () => {
  expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/);
  const { endpoint, secret } = await createWebhook(world.api, owner, { name: "Local", url: receiver.url, eventTypes: ["*"] });
  const { eventId } = await testWebhook(world.api, owner, endpoint._id);
  expect(await world.worker.tick()).toBe(1);
  const [got] = await receiver.waitFor(1);
  const headers = { "webhook-id": String(got?.headers["webhook-id"]), "webhook-timestamp": String(got?.headers["webhook-timestamp"]), "webhook-signature": String(got?.headers["webhook-signature"]) };
  expect(new Webhook(secret as string).verify(got?.body ?? "", headers)).toMatchObject({ type: "webhook.test", data: { endpointId: endpoint._id } });
  expect(headers["webhook-id"]).toBe(eventId);
  expect(await world.collections.deliveries.findOne({ endpointId: endpoint._id })).toMatchObject({ status: "succeeded", attempts: [{ statusCode: 200, error: "" }] });
});

it("refuses plain http to a public address at delivery, before connecting, even where private networks are allowed", async () => {
  const send = guardedSender({ allowPrivateNetworks: true, resolve: async () => ["93.184.216.34"] });
  const result = await send({ url: "http://hooks.example.com/earshot", headers: {}, body: "{}" });
  expect(result).toMatchObject({ statusCode: 0, response: "" });
  expect(result.error).toBe("http://hooks.example.com reaches the public address 93.184.216.34: plain http goes only to private or loopback addresses");
});
