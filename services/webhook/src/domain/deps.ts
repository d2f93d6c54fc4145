import type { Clock, Logger, Mailer, Outbox, TokenSealer } from "@earshot/platform/core";
import type { WebhookCollections } from "../store";

/** What both deployables' verbs need: the one store's collections, its outbox (idempotency records), a clock and a logger. */
export interface WebhookStoreDeps {
  collections: WebhookCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  /** Seals signing secrets with the encryption key the integration service's tokens use. */
  sealer: TokenSealer;
}

/** The `webhook` deployable's verbs (the gRPC API). */
export interface WebhookDeps extends WebhookStoreDeps {
  /**
   * Why a receiver's URL may not be used, as the refusal of the `url` field says it (its host does not
   * resolve, resolves to a loopback, private, link-local, CGNAT, multicast or metadata address, or plain http
   * leads to a public one), or undefined when the outbound rule lets it through.
   */
  refusedUrl(url: string): Promise<string | undefined>;
}

/** One HTTP POST to a receiver, as the sender reports it. */
export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendResult {
  /** The receiver's status; 0 when none came (`error` says why). */
  statusCode: number;
  durationMs: number;
  /** The first 2 KB of the answer. */
  response: string;
  error: string;
  /** The answer's rate-limit headers (retry-after, x-ratelimit-*), lower-cased: chat providers pace by them. */
  headers?: Record<string, string>;
}

/** The `delivery` deployable's work: fan-out, attempts, retries. */
export interface DeliveryDeps extends WebhookStoreDeps {
  mailer: Mailer;
  /** Delays in seconds: the first attempt's, then the one after each failure. */
  schedule: readonly number[];
  /** Sends one request to a checked, pinned public address (the SSRF rule at connect time); never throws. */
  send(request: SendRequest): Promise<SendResult>;
  userAgent: string;
  /** The origin the API is at (`EARSHOT_PUBLIC_URL`): a project's share URL in a payload is on it. */
  publicUrl: string;
  /** Called when a delivery becomes due now, so the worker need not wait for its next tick. */
  wake(): void;
}

/** Who a verb acts for: the caller with their memberships, as the edge resolved them. */
export type { ProjectCaller as Caller, ProjectRole } from "@earshot/platform/core";
