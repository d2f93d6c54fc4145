import { type DocumentStore, systemClock } from "@earshot/platform";
import { openOAuthCollections } from "./oauth/oauth-store";
import { McpSessionStore } from "./mcp/sessions/session-store";
import { IdempotencyStore } from "./pipeline/idempotency";
import { RateLimiter } from "./pipeline/rate-limit";
import { WebSessionStore } from "./sessions/session-store";
import { UnsubscribeUses } from "./web/unsubscribe-uses";

// The edge's own store (idempotency records, rate-limit counters, OAuth state, web app sessions, used
// unsubscribe links) and its indexes, created by
// the gateway when it starts and, ahead of it, by `earshot setup` (the chart's pre-install Job).

/** The store both gateways share: the database `<prefix>_edge`, or `<data dir>/edge/`. */
export const EDGE_STORE_NAME = "edge";

export const ensureEdgeIndexes = async (store: DocumentStore): Promise<void> => {
  await new IdempotencyStore(store, systemClock).ensureIndexes();
  await new RateLimiter(store, systemClock, { limit: 1, windowSeconds: 60 }).ensureIndexes();
  await openOAuthCollections(store);
  await new McpSessionStore(store, systemClock).ensureIndexes();
  await new WebSessionStore(store, systemClock, { idleMs: 1, absoluteMs: 1 }).ensureIndexes();
  await new UnsubscribeUses(store, systemClock).ensureIndexes();
};
