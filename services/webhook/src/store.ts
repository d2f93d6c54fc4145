import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { ChatFormat, DeliveryStatus, WebhookFormat } from "./fields";

// The webhook service's one store, read and written by both its deployables: the `webhook` API writes
// endpoints and asks for test sends and redeliveries by writing deliveries; the `delivery` worker fans
// events out into deliveries, attempts them and records each outcome on the same document the API reads.
// Nothing is copied between them.

/** A signing secret, sealed with the encryption key; a rotated-out one carries when it stops signing. */
export interface SealedSecretDoc {
  sealed: string;
  createdAt: Date;
  expiresAt?: Date;
}

export interface EndpointDoc extends Doc {
  workspaceId: string;
  /** Null: the endpoint receives the events of every project of the workspace. */
  projectId: string | null;
  name: string;
  url: string;
  eventTypes: string[];
  /** Absent: standard (every endpoint stored before formats). A chat endpoint's url is its secret and it has no signing secrets. */
  format?: WebhookFormat;
  /** mention.created goes out only for mentions scoring at least this; absent (or 0): every mention. */
  minRelevance?: number;
  /** mention.created goes out only for a mention that starts a story; absent: every copy. */
  oncePerStory?: boolean;
  active: boolean;
  /** Why it is inactive: the person who turned it off, or 5 days of failed deliveries. */
  deactivatedReason?: "user" | "failing";
  /** Newest first; more than one only during the 24 h after a rotation. */
  secrets: SealedSecretDoc[];
  /** The workspace plan's deliveries a day, as the last write's caller carried it: the worker's allowance. */
  dailyBudget: number;
  /** The first failure of the current streak of failed attempts; cleared by a success or a reactivation. */
  failingSince?: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** What the service knows of a workspace from account events: whom to email, and whether it is deactivated. */
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

/** One event to one endpoint: what is sent, every attempt, and when it is next due. The API's delivery log reads it as it is. */
export interface DeliveryDoc extends Doc {
  /** `<endpointId>:<eventId>`, unique: an event reaches an endpoint once however often it is consumed. */
  dedupeKey: string;
  /**
   * `<endpointId>:<storyId>` on a oncePerStory endpoint's mention.created delivery, unique: a story reaches
   * the endpoint once, by its first copy to pass the endpoint's bound.
   */
  storyKey?: string;
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
  /** When it is next due; also the claim: an attempt moves it past its own end, so no other instance takes it meanwhile. */
  nextAttemptAt?: Date;
  /** Whether the current send (first attempt, or redelivery) has counted against the daily budget. */
  charged: boolean;
  /** The UTC day (YYYY-MM-DD) whose budget its current send counted against. */
  budgetDay?: string;
  /** The headers of the last attempt, less the signature. */
  headers: Record<string, string>;
  /** Set for a chat endpoint's delivery: `body` is then its chat message alone, which the worker joins with others due together. */
  chat?: ChatFormat;
  /** The provider's rate-limit answers (429) waited out since the last counted attempt: they are not steps of the schedule. */
  rateLimitWaits?: number;
}

/** A workspace's sends on one UTC day: the one count the worker spends from and get_usage reads. */
export interface BudgetDoc extends Doc {
  workspaceId: string;
  day: string;
  used: number;
  createdAt: Date;
}

/**
 * A chat endpoint's turn, shared by every delivery replica (by endpoint id): the request in flight holds it
 * until `busyUntil` (its claim's end, so a replica that dies frees it), and the next request waits until
 * `notBefore` (the provider's pace, or the wait a 429 asked for).
 */
export interface ChatPaceDoc extends Doc {
  busyUntil?: Date;
  notBefore: Date;
  updatedAt: Date;
}

export interface WebhookCollections {
  endpoints: Collection<EndpointDoc>;
  workspaces: Collection<WorkspaceDoc>;
  deliveries: Collection<DeliveryDoc>;
  budgets: Collection<BudgetDoc>;
  chatPaces: Collection<ChatPaceDoc>;
}

export const ENDPOINTS = "endpoints";
export const WORKSPACES = "workspaces";
export const DELIVERIES = "deliveries";
export const BUDGETS = "budgets";
export const CHAT_PACES = "chat_paces";

/** Delivery history is kept 30 days; a day's budget two (the day and the next, for late readers). */
export const KEEP_DELIVERIES_SECONDS = 30 * 24 * 3600;
const KEEP_BUDGETS_SECONDS = 2 * 24 * 3600;
/** A pace outlives any wait it holds (an hour at most) and any claim: an idle endpoint's goes. */
const KEEP_CHAT_PACES_SECONDS = 2 * 3600;

export const openWebhookCollections = async (store: DocumentStore): Promise<WebhookCollections> => {
  const endpoints = store.collection<EndpointDoc>(ENDPOINTS);
  const workspaces = store.collection<WorkspaceDoc>(WORKSPACES);
  const deliveries = store.collection<DeliveryDoc>(DELIVERIES);
  const budgets = store.collection<BudgetDoc>(BUDGETS);
  const chatPaces = store.collection<ChatPaceDoc>(CHAT_PACES);
  await endpoints.ensureIndex({ fields: { workspaceId: 1 } });
  await endpoints.ensureIndex({ fields: { projectId: 1 } });
  // Sparse: a store upgraded from before the merge holds log copies without one until they are completed
  // (domain/adoption.ts); every delivery made since has one.
  await deliveries.ensureIndex({ fields: { dedupeKey: 1 }, unique: true, sparse: true });
  await deliveries.ensureIndex({ fields: { storyKey: 1 }, unique: true, sparse: true });
  await deliveries.ensureIndex({ fields: { nextAttemptAt: 1 } });
  await deliveries.ensureIndex({ fields: { endpointId: 1 } });
  await deliveries.ensureIndex({ fields: { workspaceId: 1 } });
  await deliveries.ensureIndex({ fields: { createdAt: 1 }, expireAfterSeconds: KEEP_DELIVERIES_SECONDS });
  await budgets.ensureIndex({ fields: { createdAt: 1 }, expireAfterSeconds: KEEP_BUDGETS_SECONDS });
  await chatPaces.ensureIndex({ fields: { updatedAt: 1 }, expireAfterSeconds: KEEP_CHAT_PACES_SECONDS });
  return { endpoints, workspaces, deliveries, budgets, chatPaces };
};
