import { waitFor } from "@earshot/platform/testing";
import type { Harness } from "../harness";
import { uniqueName, type World } from "../world";
import { type Cases, MISSING_PROJECT } from "./support";

// Webhook endpoints point at a port nothing listens on (every harness allows private addresses): the
// deliveries those cases cause fail at once, and the log still records them.
export const UNREACHABLE_RECEIVER = "https://127.0.0.1:9/hooks";
export const MISSING_WEBHOOK = "whk_01JZZZZZZZZZZZZZZZZZZZZZZZ";
const MISSING_DELIVERY = "dlv_01JZZZZZZZZZZZZZZZZZZZZZZZ";

export const createWebhook = async (h: Harness, actor: World["owner"], projectId: string | null, eventTypes: string[] = ["mention.created"], url = UNREACHABLE_RECEIVER) => {
  const res = await h.call("create_webhook", { projectId, name: uniqueName("Hook"), url, eventTypes }, actor.key);
  if (res.status !== 201) throw new Error(`create_webhook failed: ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; secret: string };
};

/** A webhook with one delivery (a test send) in its log. */
const webhookWithDelivery = async (h: Harness, actor: World["owner"], projectId: string) => {
  const webhook = await createWebhook(h, actor, projectId);
  const test = await h.call("test_webhook", { endpointId: webhook.id }, actor.key);
  if (test.status !== 202) throw new Error(`test_webhook failed: ${JSON.stringify(test.body)}`);
  let deliveryId = "";
  await waitFor(async () => {
    const list = await h.call("list_webhook_deliveries", { endpointId: webhook.id }, actor.key);
    deliveryId = (list.body.data as Array<{ id: string }>)[0]?.id ?? "";
    return deliveryId !== "";
  }, 10_000);
  return { endpointId: webhook.id, deliveryId };
};

const endpointPath = async (h: Harness, w: World) => ({
  foreign: { input: { endpointId: (await createWebhook(h, w.stranger, w.strangerProjectId)).id } },
  missing: { input: { endpointId: MISSING_WEBHOOK } },
});

export const webhooksCases: Cases = {
  list_webhooks: {
    happy: async (h, w) => {
      const { id } = await createWebhook(h, w.owner, w.projectId);
      return {
        input: { projectId: w.projectId, limit: 100 },
        as: "viewer",
        status: 200,
        check: (b) => {
          const row = (b.data as Array<Record<string, unknown>>).find((x) => x.id === id);
          expect(row).toMatchObject({ projectId: w.projectId, active: true, eventTypes: ["mention.created"] });
          // The secret is never read back.
          expect(JSON.stringify(b)).not.toMatch(/whsec_/);
        },
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, limit: 0 }, fields: ["limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  create_webhook: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId, name: uniqueName("Hook"), url: UNREACHABLE_RECEIVER, eventTypes: ["mention.created", "keyword.created"] },
      as: "editor",
      status: 201,
      check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, active: true, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/) }),
    }),
    bad: async (_h, w) => ({
      input: { projectId: w.projectId, name: "", url: "example.com/hooks", eventTypes: ["mention.created", "member.added"] },
      fields: ["name", "url", "eventTypes.1"],
    }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, name: "Viewer's hook", url: UNREACHABLE_RECEIVER, eventTypes: ["*"] }, as: "viewer" }),
    foreign: async (_h, w) => ({
      foreign: { input: { projectId: w.strangerProjectId, name: "Mine", url: UNREACHABLE_RECEIVER, eventTypes: ["*"] } },
      missing: { input: { projectId: MISSING_PROJECT, name: "Mine", url: UNREACHABLE_RECEIVER, eventTypes: ["*"] } },
    }),
  },
  get_webhook: {
    happy: async (h, w) => {
      const { id } = await createWebhook(h, w.owner, w.projectId);
      return {
        input: { endpointId: id },
        as: "viewer",
        status: 200,
        check: (b) => {
          expect(b.data).toMatchObject({ id, url: UNREACHABLE_RECEIVER, deactivatedReason: null });
          expect(JSON.stringify(b)).not.toMatch(/whsec_/);
        },
      };
    },
    bad: async () => ({ input: { endpointId: "w".repeat(65) }, fields: ["endpointId"] }),
    foreign: endpointPath,
  },
  update_webhook: {
    happy: async (h, w) => {
      const { id, secret } = await createWebhook(h, w.owner, w.projectId);
      return {
        input: { endpointId: id, name: "Renamed hook", eventTypes: ["*"], active: false, rotateSecret: true },
        as: "editor",
        status: 200,
        check: (b) => {
          expect(b.data).toMatchObject({ id, name: "Renamed hook", eventTypes: ["*"], active: false, deactivatedReason: "user", secret: expect.stringMatching(/^whsec_/) });
          expect((b.data as { secret: string }).secret).not.toBe(secret);
        },
      };
    },
    bad: async () => ({ input: { endpointId: MISSING_WEBHOOK, url: "ftp://example.com/", eventTypes: [] }, fields: ["url", "eventTypes"] }),
    tooWeak: async (h, w) => ({ input: { endpointId: (await createWebhook(h, w.owner, w.projectId)).id, name: "Viewer's" }, as: "viewer" }),
    foreign: async (h, w) => {
      const { foreign, missing } = await endpointPath(h, w);
      return { foreign: { input: { ...foreign.input, name: "Mine" } }, missing: { input: { ...missing.input, name: "Mine" } } };
    },
  },
  test_webhook: {
    happy: async (h, w) => ({
      input: { endpointId: (await createWebhook(h, w.owner, w.projectId)).id },
      as: "editor",
      status: 202,
      check: (b) => expect(b.data).toMatchObject({ eventId: expect.stringMatching(/^evt_/), eventType: "webhook.test" }),
    }),
    bad: async () => ({ input: { endpointId: "w".repeat(65) }, fields: ["endpointId"] }),
    tooWeak: async (h, w) => ({ input: { endpointId: (await createWebhook(h, w.owner, w.projectId)).id }, as: "viewer" }),
    foreign: endpointPath,
  },
  delete_webhook: {
    happy: async (h, w) => {
      const { endpointId } = await webhookWithDelivery(h, w.owner, w.projectId);
      return {
        input: { endpointId },
        as: "editor",
        status: 200,
        check: (b) => expect(b.data).toMatchObject({ id: endpointId }),
      };
    },
    bad: async () => ({ input: { endpointId: "w".repeat(65) }, fields: ["endpointId"] }),
    tooWeak: async (h, w) => ({ input: { endpointId: (await createWebhook(h, w.owner, w.projectId)).id }, as: "viewer" }),
    foreign: endpointPath,
  },
  list_webhook_deliveries: {
    happy: async (h, w) => {
      const { endpointId, deliveryId } = await webhookWithDelivery(h, w.owner, w.projectId);
      return {
        input: { endpointId: endpointId, eventType: "webhook.test", since: "2020-01-01T00:00:00Z" },
        as: "viewer",
        status: 200,
        check: (b) => expect((b.data as Array<{ id: string }>).map((d) => d.id)).toEqual([deliveryId]),
      };
    },
    bad: async () => ({ input: { endpointId: MISSING_WEBHOOK, status: "lost", limit: 0, since: "yesterday" }, fields: ["status", "limit", "since"] }),
    foreign: endpointPath,
  },
  get_webhook_delivery: {
    happy: async (h, w) => {
      const { endpointId, deliveryId } = await webhookWithDelivery(h, w.owner, w.projectId);
      return {
        input: { endpointId: endpointId, deliveryId },
        as: "viewer",
        status: 200,
        check: (b) => {
          expect(b.data).toMatchObject({ id: deliveryId, eventType: "webhook.test", request: { body: expect.stringContaining('"type":"webhook.test"') } });
          expect(JSON.stringify(b)).not.toMatch(/whsec_|webhook-signature/);
        },
      };
    },
    bad: async () => ({ input: { endpointId: MISSING_WEBHOOK, deliveryId: "d".repeat(65) }, fields: ["deliveryId"] }),
    foreign: async (h, w) => {
      const theirs = await webhookWithDelivery(h, w.stranger, w.strangerProjectId);
      return { foreign: { input: { endpointId: theirs.endpointId, deliveryId: theirs.deliveryId } }, missing: { input: { endpointId: MISSING_WEBHOOK, deliveryId: MISSING_DELIVERY } } };
    },
  },
  redeliver_webhook_delivery: {
    happy: async (h, w) => {
      const { endpointId, deliveryId } = await webhookWithDelivery(h, w.owner, w.projectId);
      return {
        input: { endpointId: endpointId, deliveryId },
        as: "editor",
        status: 202,
        check: (b) => expect(b.data).toMatchObject({ id: deliveryId, status: "pending" }),
      };
    },
    bad: async () => ({ input: { endpointId: MISSING_WEBHOOK, deliveryId: "d".repeat(65) }, fields: ["deliveryId"] }),
    tooWeak: async (h, w) => ({ input: await webhookWithDelivery(h, w.owner, w.projectId).then((x) => ({ endpointId: x.endpointId, deliveryId: x.deliveryId })), as: "viewer" }),
    foreign: async (h, w) => {
      const theirs = await webhookWithDelivery(h, w.stranger, w.strangerProjectId);
      return { foreign: { input: { endpointId: theirs.endpointId, deliveryId: theirs.deliveryId } }, missing: { input: { endpointId: MISSING_WEBHOOK, deliveryId: MISSING_DELIVERY } } };
    },
  },
};
