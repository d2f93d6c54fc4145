import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ServiceDeps, TokenSealer } from "@earshot/platform";
import type { DeliveryDeps, SendRequest, SendResult } from "./domain/deps";
import { DeliveryWorker, type WorkerOptions } from "./domain/worker";
import { guardedSender, type SenderOptions } from "./sender";
import type { DeliveryCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the tests build them with this
// one function.

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
  collections: DeliveryCollections;
  key: Buffer;
  schedule: readonly number[];
  sender: SenderOptions;
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
    wake: () => worker?.wake(),
  };
  worker = new DeliveryWorker(() => deps, input.worker);
  return { deps, worker };
};
