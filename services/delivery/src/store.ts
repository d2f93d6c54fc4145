import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { DeliveryStatus } from "@earshot/webhook/fields";

/** This service's copy of an endpoint, from the webhook service's events. */
export interface EndpointCopyDoc extends Doc {
  workspaceId: string;
  projectId: string | null;
  url: string;
  eventTypes: string[];
  active: boolean;
  /** Sealed; newest first. A rotated-out one signs until its expiry. */
  secrets: Array<{ sealed: string; expiresAt?: Date }>;
  /** The webhook service's version of the endpoint: an older event never replaces a newer copy. */
  version: number;
  dailyBudget: number;
  /** The first failure of the current streak of failed attempts; cleared by a success. */
  failingSince?: Date;
}

/** What this service knows of a workspace from account events: whom to email, and whether it is deactivated. */
export interface WorkspaceDoc extends Doc {
  ownerEmail?: string;
  deactivated: boolean;
}

export interface AttemptDoc {
  at: Date;
  statusCode: number;
  durationMs: number;
  response: string;
  error: string;
}

export interface DeliveryDoc extends Doc {
  /** `<endpointId>:<eventId>`, unique: an event reaches an endpoint once however often it is consumed. */
  dedupeKey: string;
  endpointId: string;
  workspaceId: string;
  eventId: string;
  eventType: string;
  /** The payload, `{ type, timestamp, data }`, exactly as sent (and signed). */
  body: string;
  status: DeliveryStatus;
  /** Which delay of the retry schedule the next attempt is at (0: the first attempt). */
  step: number;
  attempts: AttemptDoc[];
  createdAt: Date;
  /** When it is next due; also the claim: an attempt moves it past its own end, so no other replica takes it meanwhile. */
  nextAttemptAt?: Date;
  /** Whether the current send (first attempt, or redelivery) has counted against the daily budget. */
  charged: boolean;
  budgetDay?: string;
  /** The headers of the last attempt, less the signature. */
  headers: Record<string, string>;
}

export interface BudgetDoc extends Doc {
  workspaceId: string;
  day: string;
  used: number;
  createdAt: Date;
}

export interface DeliveryCollections {
  endpoints: Collection<EndpointCopyDoc>;
  workspaces: Collection<WorkspaceDoc>;
  deliveries: Collection<DeliveryDoc>;
  budgets: Collection<BudgetDoc>;
}

export const ENDPOINTS = "endpoints";
export const WORKSPACES = "workspaces";
export const DELIVERIES = "deliveries";
export const BUDGETS = "budgets";

/** Delivery history is kept 30 days; a day's budget two (the day and the next, for late readers). */
export const KEEP_DELIVERIES_SECONDS = 30 * 24 * 3600;
const KEEP_BUDGETS_SECONDS = 2 * 24 * 3600;

export const openDeliveryCollections = async (store: DocumentStore): Promise<DeliveryCollections> => {
  const endpoints = store.collection<EndpointCopyDoc>(ENDPOINTS);
  const workspaces = store.collection<WorkspaceDoc>(WORKSPACES);
  const deliveries = store.collection<DeliveryDoc>(DELIVERIES);
  const budgets = store.collection<BudgetDoc>(BUDGETS);
  await endpoints.ensureIndex({ fields: { workspaceId: 1 } });
  await deliveries.ensureIndex({ fields: { dedupeKey: 1 }, unique: true });
  await deliveries.ensureIndex({ fields: { nextAttemptAt: 1 } });
  await deliveries.ensureIndex({ fields: { endpointId: 1 } });
  await deliveries.ensureIndex({ fields: { workspaceId: 1 } });
  await deliveries.ensureIndex({ fields: { createdAt: 1 }, expireAfterSeconds: KEEP_DELIVERIES_SECONDS });
  await budgets.ensureIndex({ fields: { createdAt: 1 }, expireAfterSeconds: KEEP_BUDGETS_SECONDS });
  return { endpoints, workspaces, deliveries, budgets };
};
