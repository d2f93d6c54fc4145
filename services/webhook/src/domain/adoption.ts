import { type Collection, type Doc, isUniqueViolation } from "@earshot/platform/core";
import type { BudgetDoc, DeliveryDoc, WebhookCollections, WorkspaceDoc } from "../store";

// Data directories and databases from before the delivery worker became the webhook service's second
// deployable hold two stores: the delivery service's own (the deliveries as they were sent, the budget,
// the workspaces, and its copy of each endpoint with its failure streak) and, in the webhook store, a log
// copy of each delivery (its last `delivery.recorded` report: `requestBody`, `requestHeaders`, `version`,
// no `body`, `dedupeKey` or `step`). Nothing of either is lost: the delivery store's documents are
// adopted into the webhook store (they are newer than the log copies, which share their ids), and a log
// copy left without one is completed from what it holds, so the worker and the API read one shape.
// Both steps are idempotent; a marker records that the old store was adopted, so it is read once.

/** The delivery store's collections, as the delivery service left them. */
export interface LegacyDeliveryStore {
  deliveries: Collection<DeliveryDoc>;
  workspaces: Collection<WorkspaceDoc>;
  budgets: Collection<BudgetDoc>;
  endpoints: Collection<Doc & { failingSince?: Date }>;
}

/** A delivery as the webhook service's log kept it from `delivery.recorded`. */
type LogCopy = DeliveryDoc & { requestBody?: string; requestHeaders?: Record<string, string>; version?: number };

const PAGE = 500;

const eachPage = async <T extends Doc>(collection: Collection<T>, visit: (docs: T[]) => Promise<void>): Promise<void> => {
  let cursor: string | null = null;
  do {
    const page = await collection.findPage({}, { limit: PAGE, cursor });
    if (page.items.length > 0) await visit(page.items);
    cursor = page.nextCursor;
  } while (cursor);
};

/** Runs a write; false when it clashed with a unique index (the document is left as it was). */
const keptUnlessClash = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
};

const LEGACY_FIELDS = { requestBody: true, requestHeaders: true, version: true } as const;

/** Moves the delivery store's documents into the webhook store; the number of deliveries adopted. */
export const adoptDeliveryStore = async (source: LegacyDeliveryStore, target: WebhookCollections): Promise<number> => {
  let adopted = 0;
  await eachPage(source.deliveries, async (docs) => {
    for (const { _id, _v: _version, ...fields } of docs) {
      if (await keptUnlessClash(() => target.deliveries.updateOne({ _id }, { $set: fields, $unset: LEGACY_FIELDS }, { upsert: true }))) adopted += 1;
    }
  });
  await eachPage(source.workspaces, async (docs) => {
    for (const { _id, _v: _version, ...fields } of docs) await target.workspaces.updateOne({ _id }, { $set: fields }, { upsert: true });
  });
  await eachPage(source.budgets, async (docs) => {
    for (const { _id, _v: _version, ...fields } of docs) {
      const current = await target.budgets.findById(_id);
      if (!current || current.used < fields.used) await target.budgets.updateOne({ _id }, { $set: fields }, { upsert: true });
    }
  });
  await eachPage(source.endpoints, async (docs) => {
    for (const copy of docs) {
      if (copy.failingSince) await target.endpoints.updateOne({ _id: copy._id, failingSince: { $exists: false } }, { $set: { failingSince: copy.failingSince } });
    }
  });
  return adopted;
};

/** Completes the log copies no adopted delivery replaced; the number completed. */
export const completeLogCopies = async (target: WebhookCollections): Promise<number> => {
  const legacy = target.deliveries as unknown as Collection<LogCopy>;
  let completed = 0;
  for (;;) {
    const copies = await legacy.find({ body: { $exists: false } }, { limit: PAGE });
    if (copies.length === 0) return completed;
    for (const c of copies) {
      const kept = await keptUnlessClash(() =>
        legacy.updateOne(
        { _id: c._id, body: { $exists: false } },
        {
          $set: {
            body: c.requestBody ?? "",
            headers: c.requestHeaders ?? {},
            dedupeKey: `${c.endpointId}:${c.eventId}`,
            step: c.attempts.length,
            // Its send was counted when it was reported with a budget day.
            charged: c.budgetDay !== undefined,
          },
          $unset: LEGACY_FIELDS,
        },
      ),
      );
      // A copy that clashes with a delivery of the same endpoint and event (made since) is the older
      // record of it: dropped, so it is neither sent twice nor left half-read.
      if (kept) completed += 1;
      else await legacy.deleteOne({ _id: c._id });
    }
  }
};
