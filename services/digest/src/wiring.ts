import type { ServiceDeps } from "@earshot/platform";
import type { DigestDeps } from "./domain/deps";
import type { DigestCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the tests' world
// (test-support.ts) build them with this one function.

export type DigestWiringInput = Pick<ServiceDeps, "clock" | "logger" | "mailer"> & { collections: DigestCollections; publicUrl: string; linkKey: Buffer };

export const wireDigest = (input: DigestWiringInput): DigestDeps => ({
  collections: input.collections,
  clock: input.clock,
  logger: input.logger,
  mailer: input.mailer,
  publicUrl: input.publicUrl,
  linkKey: input.linkKey,
});
