import type { Clock } from "../clock";
import { KeyedQueue } from "../core/keyed-queue";
import { conflict } from "../errors";
import { type Collection, type Doc, type DocumentStore, isUniqueViolation, isVersionConflict, type Write } from "../store/port";
import { type EffectRecord, type EffectWrite, runOnce } from "./effects";
import type { Outbox, StagedEvent } from "./outbox";

// Plan limits and invitation de-duplication are checks over many documents (count, then insert), so two
// racing requests would both pass them. Every write that adds to a workspace's usage therefore goes through
// the workspace's guard: its commit also replaces the guard document at the version read before the checks.
// Of two racers one commits and the other meets a version conflict, then reads and checks again. Requests
// of one process wait in a per-workspace queue first, so only replicas racing each other ever retry.
// Each service that counts against a workspace's allowances keeps its own guards, in its own store.

/** The collection of a service's guard documents. */
export const WORKSPACE_GUARDS = "workspace_guards";

/** One per workspace; its version orders the writes that add to the workspace's usage. */
export interface WorkspaceGuardDoc extends Doc {
  updatedAt: Date;
}

/**
 * A request loses a round only when another guarded commit of the workspace succeeded meanwhile, so its
 * retries are bounded by the writes racing it; this covers a burst of a few dozen from several replicas.
 */
const ATTEMPTS = 32;

export type GuardedCommit = (writes: Write[], events: StagedEvent[], effect?: EffectWrite) => Promise<void>;

export class WorkspaceGuard {
  private readonly queue = new KeyedQueue();
  private readonly guards: Collection<WorkspaceGuardDoc>;

  constructor(
    store: Pick<DocumentStore, "collection">,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
  ) {
    this.guards = store.collection<WorkspaceGuardDoc>(WORKSPACE_GUARDS);
  }

  /**
   * Runs `fn` (checks, then one `commit`) so that no other guarded commit of the workspace lands between
   * its reads and its commit. `fn` must read what it checks after it is called, since it may run again.
   */
  /**
   * `run` for a verb with an idempotency key: every attempt first looks for the key's effect, so a run
   * that waited in the queue or lost the race to another run with the same key answers with that run's
   * result instead of checking the limits again (which the winner's resource now fills).
   */
  runOnce<T>(
    workspaceId: string,
    effectKey: string | undefined,
    replay: (effect: EffectRecord) => Promise<T>,
    fn: (commit: GuardedCommit) => Promise<T>,
  ): Promise<T> {
    return this.run(workspaceId, (commit) => runOnce(this.outbox, effectKey, replay, () => fn(commit)));
  }

  run<T>(workspaceId: string, fn: (commit: GuardedCommit) => Promise<T>): Promise<T> {
    return this.queue.run(workspaceId, async () => {
      for (let attempt = 1; ; attempt++) {
        const guard = await this.guards.findById(workspaceId);
        const doc: WorkspaceGuardDoc = { _id: workspaceId, updatedAt: this.clock.now() };
        // Last in the commit: on the embedded store a reader that sees the new guard version also sees the rest.
        const guardWrite: Write = guard
          ? { kind: "replace", collection: WORKSPACE_GUARDS, doc, expectedVersion: guard._v ?? 1 }
          : { kind: "insert", collection: WORKSPACE_GUARDS, doc };
        const commit: GuardedCommit = async (writes, events, effect) => {
          await this.outbox.commit([...writes, guardWrite], events, effect);
        };
        try {
          return await fn(commit);
        } catch (err) {
          const lost = isVersionConflict(err) || (isUniqueViolation(err) && err.collection === WORKSPACE_GUARDS);
          if (!lost) throw err;
          if (attempt >= ATTEMPTS) throw conflict("The workspace changed while this request ran; try again.");
        }
      }
    });
  }
}
