import { type CloudEvent, type DocumentStore, ManualClock, OUTBOX_COLLECTION, type OutboxRecord, openEmbeddedStore, Outbox } from "@earshot/platform";
import type { AccountDeps } from "./domain/deps";
import type { PasswordHasher } from "./domain/password";
import { createUser } from "./domain/users";
import { openAccountCollections } from "./store";
import { wireAccount } from "./wiring";

// Test wiring for the domain verbs: an in-memory store, the real outbox and a clock the test moves.

export interface AccountWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: AccountDeps;
  /** How long each held sign-in attempt was held, in order (the world's pause records and does not wait). */
  holds: number[];
  /** Events committed through the outbox so far, oldest first. */
  events(): Promise<Array<CloudEvent & { topic: string; key: string }>>;
}

export const openAccountWorld = async (options: { passwords?: PasswordHasher } = {}): Promise<AccountWorld> => {
  const store = await openEmbeddedStore();
  // Now, not a fixed date: stores expire TTL-indexed records (idempotency effects) by the real time.
  const clock = new ManualClock(new Date());
  const holds: number[] = [];
  const pause = async (ms: number) => {
    holds.push(ms);
  };
  const collections = await openAccountCollections(store);
  const deps: AccountDeps = wireAccount({ collections, outbox: new Outbox(store, clock, "account"), clock, pause, ...options });
  return {
    store,
    clock,
    deps,
    holds,
    events: async () =>
      (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } })).map((r) => ({ ...r.event, topic: r.topic, key: r.key })),
  };
};

export const PASSWORD = "correct horse battery";

export const newUser = (world: AccountWorld, email = "ana@example.com", name = "Ana") =>
  createUser(world.deps, { email, name, password: PASSWORD });
export { refusalOf } from "@earshot/platform/testing";
