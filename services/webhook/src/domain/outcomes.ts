import { isVersionConflict, type Outbox } from "@earshot/platform/core";
import { DELIVERIES, type DeliveryDoc } from "../store";
import type { DeliveryDeps } from "./deps";

// Recording attempts' outcomes. Each outcome replaces its delivery at the version its claim produced: the
// document the API's delivery log reads, so nothing is reported anywhere else. Outcomes that finish while a commit is under way wait and go together in
// the next one, so a busy worker writes once per round of attempts rather than once per attempt; an idle
// one writes an outcome at once. When a delivery of a shared commit changed during its attempt (a
// redelivery), that commit does nothing and each of its outcomes is written alone, so only the changed
// delivery's outcome is dropped, as when each is written alone.

interface Pending {
  claimed: DeliveryDoc;
  next: DeliveryDoc;
  done: () => void;
  failed: (err: unknown) => void;
}

const versioned = (claimed: DeliveryDoc, next: DeliveryDoc): DeliveryDoc => ({ ...next, _v: (claimed._v ?? 1) + 1 });

const commitOutcomes = (outbox: Outbox, batch: Pending[]) =>
  outbox.commit(
    batch.map((p) => ({ kind: "replace" as const, collection: DELIVERIES, doc: versioned(p.claimed, p.next), expectedVersion: p.claimed._v ?? 1 })),
    [],
  );

class OutcomeWriter {
  private queue: Pending[] = [];
  private writing = false;

  constructor(private readonly deps: DeliveryDeps) {}

  record(claimed: DeliveryDoc, next: DeliveryDoc): Promise<void> {
    return new Promise<void>((done, failed) => {
      this.queue.push({ claimed, next, done, failed });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        await this.write(batch);
      }
    } finally {
      this.writing = false;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      try {
        await commitOutcomes(this.deps.outbox, batch);
        for (const p of batch) p.done();
        return;
      } catch (err) {
        if (!isVersionConflict(err)) {
          for (const p of batch) p.failed(err);
          return;
        }
      }
    }
    for (const p of batch) {
      try {
        await commitOutcomes(this.deps.outbox, [p]);
        p.done();
      } catch (err) {
        if (!isVersionConflict(err)) {
          p.failed(err);
          continue;
        }
        this.deps.logger.info({ deliveryId: p.claimed._id }, "delivery changed during its attempt; the attempt's outcome is dropped");
        p.done();
      }
    }
  }
}

const writers = new WeakMap<DeliveryDeps, OutcomeWriter>();

/** Records an attempt's outcome (see above); resolves once it is committed, or dropped because the delivery changed. */
export const recordOutcome = (deps: DeliveryDeps, claimed: DeliveryDoc, next: DeliveryDoc): Promise<void> => {
  let writer = writers.get(deps);
  if (!writer) {
    writer = new OutcomeWriter(deps);
    writers.set(deps, writer);
  }
  return writer.record(claimed, next);
};
