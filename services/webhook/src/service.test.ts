import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MENTION_EVENTS } from "@earshot/contracts/events";
import { presentMentionWithHistory } from "@earshot/contracts/resources";
import { createGrpcClient, createInProcessBus, type GrpcClientHandle, runWithCaller } from "@earshot/platform";
import { hostServiceForTest, makeTempDir, publishedEvent, refusalOf, type ServiceUnderTest, sharedTestStores, testCaller, waitFor } from "@earshot/platform/testing";
import { commonV1, mentionV1, webhookV1 } from "@earshot/proto";
import { Webhook } from "standardwebhooks";
import { deliveryService } from "./delivery-service";
import { startReceiver, type Receiver } from "./receiver-test-support";
import { webhookService } from "./service";

// The webhook service's two deployables hosted as the all-in-one hosts them, over one store: the API
// through a real gRPC hop with the generated client, the delivery worker fed a `mention.created` through
// the in-process bus, sending to a real HTTPS receiver that verifies with `standardwebhooks`. What the
// worker wrote is what the API reads: no copy, no report between them.

describe("the webhook service's two deployables over one store", () => {
  const bus = createInProcessBus();
  let shared: Awaited<ReturnType<typeof sharedTestStores>>;
  let ca: Awaited<ReturnType<typeof makeTempDir>>;
  let receiver: Receiver;
  let api: ServiceUnderTest;
  let worker: ServiceUnderTest;
  let client: GrpcClientHandle<webhookV1.WebhookServiceClient>;
  const ana = { id: "usr_ana", workspaceId: "wsp_ana", email: "ana@example.com" };
  const bea = { id: "usr_bea", workspaceId: "wsp_bea", email: "bea@example.com" };
  const as = <T>(user: typeof ana, fn: () => Promise<T>): Promise<T> => runWithCaller(testCaller(user), fn);

  beforeAll(async () => {
    shared = await sharedTestStores();
    ca = await makeTempDir("earshot-webhook-ca-");
    receiver = await startReceiver();
    const caFile = join(ca.dir, "ca.pem");
    await writeFile(caFile, receiver.ca);
    const settings = { EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", EARSHOT_WEBHOOK_CA_FILE: caFile, EARSHOT_WEBHOOK_RETRY_SCHEDULE: "0,1" };
    api = await hostServiceForTest(webhookService, { bus, shared, settings });
    worker = await hostServiceForTest(deliveryService, { bus, shared, settings });
    client = createGrpcClient(webhookV1.WebhookServiceClient, api.address);
  });

  afterAll(async () => {
    client.close();
    await worker.stop();
    await api.stop();
    await bus.close();
    await receiver.close();
    await shared.cleanup();
    await ca.cleanup();
  });

  it("delivers a mention to an endpoint the API made, signed, and the API's log and usage read what the worker wrote", async () => {
    const made = await as(ana, () => client.client.createWebhook({ name: "Hook", url: `${receiver.url}/ana`, eventTypes: ["mention.created"], projectId: "", format: webhookV1.WebhookFormat.WEBHOOK_FORMAT_STANDARD }));
    const endpointId = made.webhook!.id;
    const at = new Date("2026-11-20T10:00:00.000Z");
    const mention: mentionV1.Mention = {
      id: "men_1",
      projectId: "prj_1",
      source: commonV1.Source.SOURCE_REDDIT,
      sourceId: "t3_1",
      url: "https://www.reddit.com/r/selfhosted/comments/1/",
      text: "Acme rocks",
      author: { id: "t2_1", handle: "bob", name: "Bob", followers: "12" },
      publishedAt: at,
      metrics: { likes: "126", replies: "3", shares: "0", views: "900" },
      keywordIds: ["kw_1"],
      groupIds: ["kwg_1"],
      matches: [],
      sentiment: { label: "positive", score: 0.5, method: "lexicon" },
      status: mentionV1.MentionStatus.MENTION_STATUS_OPEN,
      categoryId: "",
      collectedAt: at,
      matchedAt: at,
      updatedAt: at,
      history: [],
    };
    const context = { workspaceId: ana.workspaceId, keywords: [{ keywordId: "kw_1", value: "Acme", groupId: "kwg_1" }], groups: [{ groupId: "kwg_1", name: "My brand" }] };
    await bus.publish([publishedEvent(MENTION_EVENTS, "mention.created", { ...context, projectId: "prj_1", mention })]);
    const [got] = await receiver.waitFor(1);
    const payload = new Webhook(made.secret).verify(got!.body, got!.headers as Record<string, string>);
    // data is the mention as get_mention presents it (numbers as numbers); what it matched by name is beside it.
    expect(payload).toMatchObject({
      type: "mention.created",
      data: presentMentionWithHistory(mention),
      context: { workspaceId: ana.workspaceId, keywords: [{ id: "kw_1", value: "Acme", groupId: "kwg_1" }], groups: [{ id: "kwg_1", name: "My brand" }] },
    });
    expect(payload).toMatchObject({ data: { metrics: { likes: 126 }, author: { followers: 12 }, categoryId: null, title: null } });

    const succeeded = async () => (await as(ana, () => client.client.listWebhookDeliveries({ endpointId, status: webhookV1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED, eventType: "", limit: 0, cursor: "" }))).deliveries;
    await waitFor(async () => (await succeeded()).length === 1);
    const [delivery] = await succeeded();
    expect(delivery).toMatchObject({ endpointId, status: webhookV1.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED, eventType: "mention.created", attemptCount: 1, requestBody: got!.body, nextAttemptAt: undefined });
    expect(delivery!.requestHeaders["webhook-id"]).toBe(got!.headers["webhook-id"]);
    expect(delivery!.requestHeaders).not.toHaveProperty("webhook-signature");
    const usage = await client.client.getWorkspaceUsage({ workspaceId: ana.workspaceId });
    expect(usage.usage?.counts).toEqual({ webhookDeliveriesPerDay: "1" });
  });

  it("sends test_webhook's event from the worker, and keeps another workspace's endpoint and log out of reach", async () => {
    const made = await as(ana, () => client.client.createWebhook({ name: "Test", url: `${receiver.url}/test`, eventTypes: ["keyword.created"], projectId: "", format: webhookV1.WebhookFormat.WEBHOOK_FORMAT_STANDARD }));
    const before = receiver.received.length;
    const { eventId } = await as(ana, () => client.client.testWebhook({ endpointId: made.webhook!.id }));
    const got = await receiver.waitFor(before + 1);
    expect(got.at(-1)?.headers["webhook-id"]).toBe(eventId);
    expect(new Webhook(made.secret).verify(got.at(-1)!.body, got.at(-1)!.headers as Record<string, string>)).toMatchObject({ type: "webhook.test" });
    expect(await refusalOf(as(bea, () => client.client.getWebhook({ endpointId: made.webhook!.id })))).toMatchObject({ code: "not_found" });
    expect(await refusalOf(as(bea, () => client.client.listWebhookDeliveries({ endpointId: made.webhook!.id, status: webhookV1.DeliveryStatus.DELIVERY_STATUS_UNSPECIFIED, eventType: "", limit: 0, cursor: "" })))).toMatchObject({ code: "not_found" });
  });
});
