import type { Clock, Logger, Mailer, Outbox, TokenSealer } from "@earshot/platform/core";
import type { DeliveryCollections } from "../store";

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
}

export interface DeliveryDeps {
  collections: DeliveryCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  sealer: TokenSealer;
  /** Delays in seconds: the first attempt's, then the one after each failure. */
  schedule: readonly number[];
  /** Sends one request to a checked, pinned public address (the SSRF rule at connect time); never throws. */
  send(request: SendRequest): Promise<SendResult>;
  userAgent: string;
  /** Called when a delivery becomes due now, so the worker need not wait for its next tick. */
  wake(): void;
}
