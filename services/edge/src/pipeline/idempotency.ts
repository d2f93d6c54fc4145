import { createHash, randomUUID } from "node:crypto";
import { type Clock, type Collection, DomainError, type Doc, type DocumentStore, isUniqueViolation, isVersionConflict } from "@earshot/platform";
import { canonicalJson } from "./canonical-json";

// Idempotency keys (DESIGN.md): stored per (credential owner, key) for 24 h with a fingerprint of method,
// path and canonical body, in the edge's store so every gateway replica sees them. The first request
// inserts an in-progress record (the unique _id decides races between replicas); a finished one is
// replayed; a different payload or a request still running answers 409; a 5xx is forgotten so a retry runs.
//
// The record and the service's commit live in two stores, so a process can die between them. Two things
// make the retry after a crash safe: the request runs with an effect key (a digest of owner, key and
// fingerprint) that the gRPC client sends along, under which create verbs record what they created in the
// same commit, so a re-run answers with it instead of creating again; and an in-progress record names
// the process running it (`holder`) with a lease that process renews while it runs, so a dead process's
// record is taken over once its lease lapses, at once when the store is embedded: one process owns that
// data directory (its lock file), so a record some other process holds belongs to a process that died.

export const IDEMPOTENCY_COLLECTION = "idempotency_keys";
const RETAIN_MS = 24 * 3600 * 1000;
/** How long a running request's record is vouched for; renewed every third of it while the request runs. */
const LEASE_MS = 15_000;

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
  /** The gateway process running the request (while in progress). */
  holder?: string;
  /** Until when the holder vouches that it is still running the request. */
  leaseUntil?: Date;
  response?: StoredResponse;
}

export type IdempotencyBegin =
  | {
      kind: "proceed";
      /** The key the services record this request's effect under (sent to them in gRPC metadata). */
      effectKey: string;
      complete: (response: StoredResponse) => Promise<void>;
    }
  | { kind: "replay"; response: StoredResponse };

/**
 * A write's identity: method, concrete path, the query a write may carry (disconnect_linkedin's
 * projectId), and the canonical body. Query values are compared as text, the form REST brings them in,
 * so a key is shared by a REST request and the MCP call standing for it; no query adds nothing.
 */
export const fingerprintOf = (method: string, path: string, body: unknown, query: Record<string, unknown> = {}): string => {
  const entries = Object.entries(query).filter(([, v]) => v !== undefined);
  const asText = (v: unknown): unknown => (Array.isArray(v) ? v.map(asText) : typeof v === "object" && v !== null ? canonicalJson(v) : String(v));
  const target = entries.length === 0 ? path : `${path}?${canonicalJson(Object.fromEntries(entries.map(([k, v]) => [k, asText(v)])))}`;
  return createHash("sha256").update(`${method} ${target}\n${canonicalJson(body ?? {})}`).digest("base64url");
};

/** One request's identity for the services: the same owner, key and payload always give the same effect key. */
export const effectKeyOf = (owner: string, key: string, fingerprint: string): string =>
  createHash("sha256").update(`${owner}\n${key}\n${fingerprint}`).digest("base64url");

export const validateIdempotencyKey = (key: string): void => {
  if (key.length < 8 || key.length > 128) {
    throw new DomainError("validation_failed", "The Idempotency-Key must be 8 to 128 characters.", {
      errors: [{ path: "Idempotency-Key", message: "must be 8 to 128 characters" }],
    });
  }
};

export interface IdempotencyStoreOptions {
  /**
   * True when no other process can use this store at the same time (the embedded store's lock file
   * guarantees it): an in-progress record held by another process is then a dead one's. Defaults to
   * true for the embedded store.
   */
  soleOwner?: boolean;
  /** The lease of a running request's record (default 15 s). */
  leaseMs?: number;
}

export class IdempotencyStore {
  private readonly records: Collection<IdempotencyRecord>;
  private readonly soleOwner: boolean;
  private readonly leaseMs: number;
  /** This process, as the holder of the records it runs. */
  private readonly holder = `gw_${randomUUID()}`;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
    options: IdempotencyStoreOptions = {},
  ) {
    this.records = store.collection<IdempotencyRecord>(IDEMPOTENCY_COLLECTION);
    this.soleOwner = options.soleOwner ?? store.kind === "embedded";
    this.leaseMs = options.leaseMs ?? LEASE_MS;
  }

  ensureIndexes(): Promise<void> {
    return this.records.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  }

  async begin(owner: string, key: string, fingerprint: string): Promise<IdempotencyBegin> {
    const id = `${owner}:${key}`;
    const effectKey = effectKeyOf(owner, key, fingerprint);
    const now = this.clock.now();
    const record: IdempotencyRecord = {
      _id: id,
      fingerprint,
      state: "in_progress",
      startedAt: now,
      expiresAt: new Date(now.getTime() + RETAIN_MS),
      holder: this.holder,
      leaseUntil: this.leaseFrom(now),
    };
    try {
      await this.records.insertOne(record);
      return this.proceed(id, effectKey);
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
    if (this.abandoned(existing, now)) {
      try {
        await this.records.updateVersioned(id, existing._v ?? 1, { $set: { startedAt: now, holder: this.holder, leaseUntil: this.leaseFrom(now) } });
        return this.proceed(id, effectKey);
      } catch (err) {
        if (!isVersionConflict(err)) throw err;
      }
    }
    throw new DomainError("idempotency_in_progress", "A request with this Idempotency-Key is still being processed.");
  }

  private leaseFrom(now: Date): Date {
    return new Date(now.getTime() + this.leaseMs);
  }

  /** Whether the process that began this request is gone, so the retry may run it (again). */
  private abandoned(record: IdempotencyRecord, now: Date): boolean {
    if (this.soleOwner && record.holder !== this.holder) return true;
    // Records written before holders existed vouch for one lease from their start.
    const leaseUntil = record.leaseUntil ?? this.leaseFrom(record.startedAt);
    return leaseUntil.getTime() <= now.getTime();
  }

  private proceed(id: string, effectKey: string): IdempotencyBegin {
    // Only the current holder renews or finishes the record: after a takeover the old run's answer is dropped.
    const mine = { _id: id, holder: this.holder, state: "in_progress" };
    const renew = setInterval(() => {
      this.records.updateOne(mine, { $set: { leaseUntil: this.leaseFrom(this.clock.now()) } }).catch(() => undefined);
    }, this.leaseMs / 3);
    renew.unref();
    return {
      kind: "proceed",
      effectKey,
      complete: async (response) => {
        clearInterval(renew);
        if (response.status >= 500) await this.records.deleteOne(mine);
        else await this.records.updateOne(mine, { $set: { state: "done", response }, $unset: { holder: true, leaseUntil: true } });
      },
    };
  }
}
