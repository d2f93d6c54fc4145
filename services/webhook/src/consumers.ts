import { ACCOUNT_EVENTS } from "@earshot/contracts/events";
import { consume, consumeBatches } from "@earshot/platform";
import { DELIVERABLE_CATALOGS, WEBHOOK_EVENT_TYPES } from "./deliverable";
import type { DeliveryDeps } from "./domain/deps";
import { fanOutBatch } from "./domain/fan-out";
import { handleAccountEvent } from "./domain/workspaces";
import { deliverableOf } from "./payloads";

// What the `delivery` deployable consumes: the deliverable catalogs' events, each with its body (the
// resource as the API presents it, payloads.ts), fanned out in batches into deliveries (the ones that
// arrived meanwhile make theirs in one commit), and the account events (owner
// address, deactivation). The host subscribes and stops them.

/** Most events fanned out in one commit (at 10 endpoints, 1,000 deliveries). */
export const FAN_OUT_BATCH = 100;

export const GROUPS = {
  events: "delivery.events",
  accounts: "delivery.account-events",
} as const;

export const DELIVERY_CONSUMERS = [
  consumeBatches(DELIVERABLE_CATALOGS, {
    group: GROUPS.events,
    // The internal types of these catalogs are recorded as handled without reaching the fan-out.
    types: WEBHOOK_EVENT_TYPES,
    maxBatch: FAN_OUT_BATCH,
    handle: (deps: DeliveryDeps, events) => fanOutBatch(deps, events.map((e) => deliverableOf(e, deps))),
  }),
  consume(ACCOUNT_EVENTS, { group: GROUPS.accounts, types: ["user.created", "user.deactivated", "user.reactivated"], handle: handleAccountEvent }),
];
