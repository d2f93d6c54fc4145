import { createHash } from "node:crypto";
import { type Clock, type Collection, DomainError, type Doc, type DocumentStore, isUniqueViolation, isVersionConflict } from "@earshot/platform";
import { canonicalJson } from "./canonical-json";

// Idempotency keys (DESIGN.md): stored per (credential owner, key) for 24 h with a fingerprint of method,
// path and canonical body, in the edge's store so every gateway replica sees them. The first request
// inserts an in-progress record (the unique _id decides races between replicas); a finished one is
// replayed; a different payload or a request still running answers 409; a 5xx is forgotten so a retry runs.

export const IDEMPOTENCY_COLLECTION = "idempotency_keys";
const RETAIN_MS = 24 * 3600 * 1000;
/** An in-progress record older than this belongs to a request whose process died; it may be taken over. */
const STALE_MS = 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

interface IdempotencyRecord extends Doc {
  fingerprint: string;
  state: "in_progress" | "done";
  startedAt: Date;
  expiresAt: Date;
  response?: StoredResponse;
}

export type IdempotencyBegin =
  | { kind: "proceed"; complete: (response: StoredResponse) => Promise<void> }
  | { kind: "replay"; response: StoredResponse };

export const fingerprintOf = (method: string, path: string, body: unknown): string =>
  createHash("sha256").update(`${method} ${path}\n${canonicalJson(body ?? {})}`).digest("base64url");

export const validateIdempotencyKey = (key: string): void => {
  if (key.length < 8 || key.length > 128) {
    throw new DomainError("validation_failed", "The Idempotency-Key must be 8 to 128 characters.", {
      errors: [{ path: "Idempotency-Key", message: "must be 8 to 128 characters" }],
    });
  }
};

export class IdempotencyStore {
  private readonly records: Collection<IdempotencyRecord>;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
  ) {
    this.records = store.collection<IdempotencyRecord>(IDEMPOTENCY_COLLECTION);
  }

  ensureIndexes(): Promise<void> {
    return this.records.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  }

  async begin(owner: string, key: string, fingerprint: string): Promise<IdempotencyBegin> {
    const id = `${owner}:${key}`;
    const now = this.clock.now();
    const record: IdempotencyRecord = {
      _id: id,
      fingerprint,
      state: "in_progress",
      startedAt: now,
      expiresAt: new Date(now.getTime() + RETAIN_MS),
    };
    try {
      await this.records.insertOne(record);
      return this.proceed(id);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const existing = await this.records.findById(id);
    if (!existing || existing.expiresAt.getTime() <= now.getTime()) {
      // Expired between the insert and this read (or TTL not yet swept): start over once.
      await this.records.deleteOne({ _id: id, expiresAt: { $lte: now } });
      return this.begin(owner, key, fingerprint);
    }
    if (existing.fingerprint !== fingerprint) {
      throw new DomainError("idempotency_key_reused", "This Idempotency-Key was used with a different request.");
    }
    if (existing.state === "done" && existing.response) return { kind: "replay", response: existing.response };
    if (now.getTime() - existing.startedAt.getTime() > STALE_MS) {
      try {
        await this.records.updateVersioned(id, existing._v ?? 1, { $set: { startedAt: now } });
        return this.proceed(id);
      } catch (err) {
        if (!isVersionConflict(err)) throw err;
      }
    }
    throw new DomainError("idempotency_in_progress", "A request with this Idempotency-Key is still being processed.");
  }

  private proceed(id: string): IdempotencyBegin {
    return {
      kind: "proceed",
      complete: async (response) => {
        if (response.status >= 500) await this.records.deleteOne({ _id: id });
        else await this.records.updateOne({ _id: id }, { $set: { state: "done", response } });
      },
    };
  }
}
