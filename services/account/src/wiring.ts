import type { ServiceDeps } from "@earshot/platform";
import type { AccountDeps } from "./domain/deps";
import { type PasswordHasher, scryptHasher } from "./domain/password";
import type { AccountCollections } from "./store";

// How the service's parts are put together: the service (service.ts) and the domain tests' world
// (test-support.ts) build them with this one function, so a test runs the verbs as the service wires them.

export type AccountWiringInput = Pick<ServiceDeps, "outbox" | "clock"> & {
  collections: AccountCollections;
  /** Defaults to scrypt. */
  passwords?: PasswordHasher;
  /** Defaults to a timer. */
  pause?: (ms: number) => Promise<void>;
};

const timerPause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const wireAccount = (input: AccountWiringInput): AccountDeps => ({
  collections: input.collections,
  outbox: input.outbox,
  clock: input.clock,
  passwords: input.passwords ?? scryptHasher,
  pause: input.pause ?? timerPause,
});
