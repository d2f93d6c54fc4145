import { ACCOUNT_EVENTS } from "@earshot/account/events";
import { INTEGRATION_EVENTS } from "@earshot/integration/events";
import { KEYWORD_EVENTS } from "@earshot/keyword/events";
import { MENTION_EVENTS } from "@earshot/mention/events";
import { type ServiceDeps, type Subscription, subscribeDomainEvents, subscribeEventBatches } from "@earshot/platform";
import { PROJECT_EVENTS } from "@earshot/project/events";
import { WEBHOOK_EVENTS } from "@earshot/webhook/events";
import { WEBHOOK_EVENT_TYPES } from "@earshot/webhook/fields";
import type { DeliveryDeps } from "./domain/deps";
import { fanOutBatch, redeliver, sendTest } from "./domain/fan-out";
import { dropEndpoint, handleAccountEvent, saveEndpoint } from "./domain/replicas";

// What the delivery service consumes: the topics whose events endpoints may subscribe to (their `data` is
// sent as it was published, so they are read raw, not decoded), the webhook service's endpoint changes
// and requests, and the account events (owner address, deactivation).

/** The topics of the deliverable events. */
export const DELIVERABLE_TOPICS = [PROJECT_EVENTS.topic, KEYWORD_EVENTS.topic, MENTION_EVENTS.topic, INTEGRATION_EVENTS.topic];

export const CONSUMED_TOPICS = [...DELIVERABLE_TOPICS, WEBHOOK_EVENTS.topic, ACCOUNT_EVENTS.topic];

/** Most events fanned out in one commit (at 10 endpoints, 1,000 deliveries). */
export const FAN_OUT_BATCH = 100;

const DELIVERABLE = new Set<string>(WEBHOOK_EVENT_TYPES);

export const GROUPS = {
  events: "delivery.events",
  webhooks: "delivery.webhook-events",
  accounts: "delivery.account-events",
} as const;

export const startDeliveryConsumers = async (host: ServiceDeps, deps: DeliveryDeps): Promise<Subscription[]> => {
  const common = { bus: host.bus, store: host.store, clock: host.clock, logger: host.logger };
  const subscriptions: Subscription[] = [];
  try {
    subscriptions.push(
      // In batches: the events that arrived meanwhile make their deliveries in one commit.
      await subscribeEventBatches({
        ...common,
        groupId: GROUPS.events,
        topics: DELIVERABLE_TOPICS,
        maxBatch: FAN_OUT_BATCH,
        handle: (events) => fanOutBatch(deps, events.filter((e) => DELIVERABLE.has(e.type))),
      }),
      await subscribeDomainEvents({
        ...common,
        groupId: GROUPS.webhooks,
        events: WEBHOOK_EVENTS,
        handle: async (event) => {
          switch (event.type) {
            case "webhook.endpoint.saved":
              return saveEndpoint(deps, event.data);
            case "webhook.endpoint.deleted":
              return dropEndpoint(deps, event.data.endpointId);
            case "webhook.test_requested":
              return sendTest(deps, event.data);
            case "webhook.redelivery_requested":
              return redeliver(deps, event.data);
            default:
              return;
          }
        },
      }),
      await subscribeDomainEvents({
        ...common,
        groupId: GROUPS.accounts,
        events: ACCOUNT_EVENTS,
        types: ["user.created", "user.deactivated", "user.reactivated"],
        handle: (event) => handleAccountEvent(deps, event),
      }),
    );
  } catch (err) {
    await Promise.all(subscriptions.map((s) => s.stop()));
    throw err;
  }
  return subscriptions;
};
