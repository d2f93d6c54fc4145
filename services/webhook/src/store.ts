import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { DeliveryStatus } from "./fields";

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
  active: boolean;
  /** Why it is inactive: the person who turned it off, or 5 days of failed deliveries. */
  deactivatedReason?: "user" | "failing";
  /** Newest first; more than one only during the 24 h after a rotation. */
  secrets: SealedSecretDoc[];
  /** The workspace plan's deliveries a day, as the last write's caller carried it (the delivery service's budget). */
  dailyBudget: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptDoc {
  at: Date;
  statusCode: number;
  durationMs: number;
  response: string;
  error: string;
}

/** The delivery log as the delivery service reports it (`delivery.recorded`); this service only reads it. */
export interface DeliveryLogDoc extends Doc {
  endpointId: string;
  workspaceId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: AttemptDoc[];
  createdAt: Date;
  nextAttemptAt?: Date;
  requestHeaders: Record<string, string>;
  requestBody: string;
  /** The UTC day (YYYY-MM-DD) whose budget its last send counted against; absent until it was sent. */
  budgetDay?: string;
  /** The delivery service's version of the record: an older report never replaces a newer one. */
  version: number;
}

export interface WebhookCollections {
  endpoints: Collection<EndpointDoc>;
  deliveries: Collection<DeliveryLogDoc>;
}

export const ENDPOINTS = "endpoints";
export const DELIVERIES = "deliveries";

/** Delivery history is kept 30 days (DESIGN.md "Webhooks"). */
export const KEEP_DELIVERIES_SECONDS = 30 * 24 * 3600;

export const openWebhookCollections = async (store: DocumentStore): Promise<WebhookCollections> => {
  const endpoints = store.collection<EndpointDoc>(ENDPOINTS);
  const deliveries = store.collection<DeliveryLogDoc>(DELIVERIES);
  await endpoints.ensureIndex({ fields: { workspaceId: 1 } });
  await endpoints.ensureIndex({ fields: { projectId: 1 } });
  await deliveries.ensureIndex({ fields: { endpointId: 1 } });
  await deliveries.ensureIndex({ fields: { workspaceId: 1, budgetDay: 1 } });
  await deliveries.ensureIndex({ fields: { createdAt: 1 }, expireAfterSeconds: KEEP_DELIVERIES_SECONDS });
  return { endpoints, deliveries };
};
