import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type AddressGuardOptions, type ServiceDeps, TokenSealer } from "@earshot/platform";
import type { DeliveryDeps, SendRequest, SendResult, WebhookDeps } from "./domain/deps";
import { DeliveryWorker, type WorkerOptions } from "./domain/worker";
import { guardedSender, type SenderOptions } from "./sender";
import { urlRefusal } from "./url-reach";
import type { WebhookCollections } from "./store";

// How the service's parts are put together, for each deployable: the modules (service.ts,
// delivery-service.ts) and the tests' worlds build them with these functions.

export type WebhookWiringInput = Pick<ServiceDeps, "outbox" | "clock" | "logger"> & {
  collections: WebhookCollections;
  key: Buffer;
  /** The outbound rule's options: the resolver (tests inject one) and the private-networks switch. */
  addressGuard: AddressGuardOptions;
};

export const wireWebhook = (input: WebhookWiringInput): WebhookDeps => ({
  collections: input.collections,
  outbox: input.outbox,
  clock: input.clock,
  logger: input.logger,
  sealer: new TokenSealer(input.key),
  refusedUrl: urlRefusal(input.addressGuard),
});

/** Earshot's version, from the package.json beside dist/ (and src/). */
const version = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
};

export const USER_AGENT = `Earshot-Webhooks/${version()} (+https://github.com/earshot; Standard Webhooks)`;

export type DeliveryWiringInput = Pick<ServiceDeps, "outbox" | "clock" | "logger" | "mailer"> & {
  collections: WebhookCollections;
  key: Buffer;
  schedule: readonly number[];
  sender: SenderOptions;
  /** The origin the API is at: a project's share URL in a payload is on it. */
  publicUrl: string;
  /** Replaces the guarded sender (tests that need no network). */
  send?: (request: SendRequest) => Promise<SendResult>;
  worker?: WorkerOptions;
};

export interface WiredDelivery {
  deps: DeliveryDeps;
  worker: DeliveryWorker;
}

export const wireDelivery = (input: DeliveryWiringInput): WiredDelivery => {
  let worker: DeliveryWorker | undefined;
  const deps: DeliveryDeps = {
    collections: input.collections,
    outbox: input.outbox,
    clock: input.clock,
    logger: input.logger,
    mailer: input.mailer,
    sealer: new TokenSealer(input.key),
    schedule: input.schedule,
    send: input.send ?? guardedSender(input.sender),
    userAgent: USER_AGENT,
    publicUrl: input.publicUrl,
    wake: () => worker?.wake(),
  };
  worker = new DeliveryWorker(() => deps, input.worker);
  return { deps, worker };
};
