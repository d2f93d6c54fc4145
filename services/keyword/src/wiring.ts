import { type ServiceDeps, WorkspaceGuard } from "@earshot/platform";
import type { KeywordDeps } from "./domain/deps";
import type { KeywordCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the domain tests' world
// (test-support.ts) build them with this one function, so a test runs the verbs as the service wires them.

export type KeywordWiringInput = Pick<ServiceDeps, "store" | "outbox" | "clock" | "logger"> & { collections: KeywordCollections };

export const wireKeyword = (input: KeywordWiringInput): KeywordDeps => ({
  collections: input.collections,
  outbox: input.outbox,
  clock: input.clock,
  logger: input.logger,
  guard: new WorkspaceGuard(input.store, input.outbox, input.clock),
});
