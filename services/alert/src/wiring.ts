import type { ServiceDeps } from "@earshot/platform";
import type { AlertDeps } from "./domain/deps";
import type { AlertCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the domain tests' world
// (test-support.ts) build them with this one function.

export type AlertWiringInput = Pick<ServiceDeps, "outbox" | "clock" | "logger"> & { collections: AlertCollections };

export const wireAlert = (input: AlertWiringInput): AlertDeps => ({
  collections: input.collections,
  outbox: input.outbox,
  clock: input.clock,
  logger: input.logger,
});
