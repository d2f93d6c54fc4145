import { isDomainError } from "@earshot/platform";
import { testProjectCaller } from "@earshot/platform/testing";
import { webhookV1 } from "@earshot/proto";
import { createWebhook, getWebhook, updateWebhook } from "./domain/endpoints";
import type { WebhookFormat } from "./fields";
import { toWebhookMessage } from "./rpc/webhook-rpc";
import { openWebhookWorld, type WebhookWorld } from "./test-support";

// Chat formats at the API's verbs: what a chat endpoint takes and refuses, and its URL as its secret.

let world: WebhookWorld;
beforeAll(async () => {
  world = await openWebhookWorld();
});
afterAll(async () => world?.close());

const owner = testProjectCaller({ prj_a: "owner" }, { workspaceId: "wsp_1" });
const SLACK_URL = "https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstWXYZ";

const refusal = async (run: Promise<unknown>) => {
  try {
    await run;
  } catch (err) {
    if (isDomainError(err)) return { code: err.code, errors: err.errors };
    throw err;
  }
  throw new Error("expected a refusal");
};

const create = (extra: { eventTypes?: string[]; format?: string; url?: string } = {}, key?: string) =>
  createWebhook(world.deps, owner, { projectId: "prj_a", name: "Chat", url: extra.url ?? SLACK_URL, ...extra, format: extra.format as WebhookFormat }, key);

it("makes a chat endpoint for mention.created, unsigned, its URL whole in the create's answer and masked in every read", async () => {
  const { endpoint, secret, wholeUrl } = await create({ format: "slack" });
  expect(endpoint).toMatchObject({ format: "slack", eventTypes: ["mention.created"], secrets: [] });
  expect(secret).toBeUndefined();
  expect(toWebhookMessage(endpoint, { wholeUrl })).toMatchObject({ url: SLACK_URL, format: webhookV1.WebhookFormat.WEBHOOK_FORMAT_SLACK });
  expect(toWebhookMessage(await getWebhook(world.deps, owner, endpoint._id)).url).toBe("https://hooks.slack.com/…WXYZ");
});

it("answers a replayed create with the same endpoint and whole URL, and no secret", async () => {
  const first = await create({ format: "discord", url: "https://discord.com/api/webhooks/1/token-abcdefgh" }, "chat-key-1");
  const again = await create({ format: "discord", url: "https://discord.com/api/webhooks/1/token-abcdefgh" }, "chat-key-1");
  expect(again.endpoint._id).toBe(first.endpoint._id);
  expect(again).toMatchObject({ wholeUrl: true });
  expect(again.secret).toBeUndefined();
});

it.each([
  ["*", ["*"]],
  ["another type", ["keyword.created"]],
  ["mention.created with another", ["mention.created", "mention.updated"]],
])("refuses %s for a chat format, naming eventTypes", async (_what, eventTypes) => {
  const r = await refusal(create({ format: "discord", eventTypes }));
  expect(r).toMatchObject({ code: "validation_failed", errors: [{ path: "eventTypes", message: expect.stringMatching(/mention\.created only/) }] });
});

it("refuses an unknown format naming format, and a standard endpoint without event types naming eventTypes", async () => {
  expect(await refusal(create({ format: "teams", eventTypes: ["*"] }))).toMatchObject({ errors: [{ path: "format" }] });
  expect(await refusal(createWebhook(world.deps, owner, { projectId: "prj_a", name: "Std", url: SLACK_URL }))).toMatchObject({ errors: [{ path: "eventTypes", message: expect.stringMatching(/^is required/) }] });
});

it("keeps a chat endpoint's rules on update: no other event types, no secret to rotate; a new URL is answered whole once", async () => {
  const { endpoint } = await create({ format: "slack" });
  const refused = await refusal(updateWebhook(world.deps, owner, endpoint._id, { eventTypes: ["*"], rotateSecret: true }));
  expect(refused).toMatchObject({ code: "validation_failed", errors: [{ path: "eventTypes" }, { path: "rotateSecret", message: expect.stringMatching(/URL is the secret/) }] });
  const renamed = await updateWebhook(world.deps, owner, endpoint._id, { name: "Renamed" });
  expect(toWebhookMessage(renamed.endpoint, renamed).url).toBe("https://hooks.slack.com/…WXYZ");
  const moved = await updateWebhook(world.deps, owner, endpoint._id, { url: "https://hooks.slack.com/services/T0001/B0002/newtokenNEWTOKEN1234" });
  expect(toWebhookMessage(moved.endpoint, moved).url).toBe("https://hooks.slack.com/services/T0001/B0002/newtokenNEWTOKEN1234");
  expect(moved.secret).toBeUndefined();
});

it("reads an endpoint stored before formats as standard, its URL whole", async () => {
  const { endpoint } = await createWebhook(world.deps, owner, { projectId: "prj_a", name: "Old", url: "https://hooks.example.com/x", eventTypes: ["*"] });
  expect(endpoint.format).toBeUndefined();
  expect(toWebhookMessage(endpoint)).toMatchObject({ url: "https://hooks.example.com/x", format: webhookV1.WebhookFormat.WEBHOOK_FORMAT_STANDARD });
});
