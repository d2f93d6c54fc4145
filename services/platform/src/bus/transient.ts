import { DomainError } from "../errors";
import { isVersionConflict, ReplicaSetRequiredError } from "../store/port";

// Which handler failures are the infrastructure's rather than the message's. An outage of the store, a
// service or the network passes; dead-lettering the messages that met it would lose them for good, so
// the buses keep retrying these (blocking the partition, which is right while the outage lasts) and give
// up only on the rest.

/** Driver errors a MongoDB client raises for a lost or unreachable server (matched by name: no driver import here). */
const TRANSIENT_ERROR_NAMES = new Set([
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoServerSelectionError",
  "MongoNotConnectedError",
  "MongoTopologyClosedError",
  "MongoPoolClearedError",
  "MongoWriteConcernError",
]);

/** Node socket errors of a peer that is down, restarting or unreachable. */
const TRANSIENT_SYSTEM_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND"]);

/** MongoDB labels errors a retry may cure. */
const TRANSIENT_LABELS = ["TransientTransactionError", "RetryableWriteError", "ResetPool"];

const hasTransientLabel = (err: object): boolean => {
  const hasLabel = (err as { hasErrorLabel?: unknown }).hasErrorLabel;
  return typeof hasLabel === "function" && TRANSIENT_LABELS.some((label) => hasLabel.call(err, label) === true);
};

const isTransientOne = (err: unknown): boolean => {
  if (err === null || typeof err !== "object") return false;
  if (err instanceof DomainError) return err.code === "unavailable";
  if (err instanceof ReplicaSetRequiredError || isVersionConflict(err)) return true;
  const { name, code } = err as { name?: unknown; code?: unknown };
  if (typeof name === "string" && TRANSIENT_ERROR_NAMES.has(name)) return true;
  if (typeof code === "string" && TRANSIENT_SYSTEM_CODES.has(code)) return true;
  return hasTransientLabel(err);
};

/**
 * Whether `err` is an infrastructure failure that retrying may cure: a DomainError `unavailable`, a lost
 * or unreachable store or peer, `ReplicaSetRequiredError` (a store not set up yet), or a version conflict
 * (a concurrent writer). Looks through `cause` chains, so a wrapped driver error counts too.
 */
export const isTransient = (err: unknown): boolean => {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e !== undefined && e !== null && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    if (isTransientOne(e)) return true;
    if (typeof e !== "object") break;
  }
  return false;
};
