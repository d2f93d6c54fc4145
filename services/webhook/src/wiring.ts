import { type AddressGuardOptions, resolvePublicAddresses, type ServiceDeps, TokenSealer } from "@earshot/platform";
import type { WebhookDeps } from "./domain/deps";
import type { WebhookCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the domain tests' world
// (test-support.ts) build them with this one function.

export type WebhookWiringInput = Pick<ServiceDeps, "outbox" | "clock" | "logger"> & {
  collections: WebhookCollections;
  key: Buffer;
  /** The SSRF rule's options: the resolver (tests inject one) and the private-networks switch. */
  addressGuard: AddressGuardOptions;
};

/** Why the URL's host may not be reached, or undefined when it resolves to public addresses only. */
const hostRefusal = (guard: AddressGuardOptions) => async (url: string): Promise<string | undefined> => {
  try {
    await resolvePublicAddresses(new URL(url).hostname, guard);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
};

export const wireWebhook = (input: WebhookWiringInput): WebhookDeps => ({
  collections: input.collections,
  outbox: input.outbox,
  clock: input.clock,
  logger: input.logger,
  sealer: new TokenSealer(input.key),
  refusedHost: hostRefusal(input.addressGuard),
});
