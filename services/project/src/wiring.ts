import { type ServiceDeps, WorkspaceGuard } from "@earshot/platform";
import type { ProjectDeps } from "./domain/deps";
import type { ProjectCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the domain tests' world
// (test-support.ts) build them with this one function, so a test runs the verbs as the service wires them.

export type ProjectWiringInput = Pick<ServiceDeps, "store" | "outbox" | "clock" | "mailer" | "logger"> & { collections: ProjectCollections };

export const wireProject = (input: ProjectWiringInput): ProjectDeps => ({
  collections: input.collections,
  outbox: input.outbox,
  clock: input.clock,
  mailer: input.mailer,
  logger: input.logger,
  guard: new WorkspaceGuard(input.store, input.outbox, input.clock),
});
