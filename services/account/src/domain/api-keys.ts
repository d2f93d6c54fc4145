import { createHash, randomBytes } from "node:crypto";
import {
  checkFields,
  DomainError,
  type FieldError,
  forbidden,
  newId,
  notFound,
  type Page,
  pageLimit,
  runOnce,
  type StagedEvent,
  validationFailed,
  withCursorErrors,
  withVersionRetry,
  type Write,
} from "@earshot/platform/core";
import { DEFAULT_KEY_NAME, newApiKeySchema } from "../fields";
import { apiKeyCreatedEvent, apiKeyRevokedEvent } from "../events";
import { API_KEYS, type ApiKeyDoc, type UserDoc, type WorkspaceDoc } from "../store";
import { type AccountDeps, nextVersion, workspaceOf } from "./deps";
import { type Allowances, allowancesOf } from "./plans";

// API keys: `svc_sk_` + 32 random bytes (base64url, 43 characters). Only a SHA-256 of the plaintext is
// stored, with a short display prefix; the plaintext exists once, in the create response.

export const KEY_PREFIX = "svc_sk_";
/** `svc_sk_` and four characters of the random part, enough to tell keys apart in a list. */
export const DISPLAY_PREFIX_LENGTH = 11;
const KEY_RE = /^svc_sk_[A-Za-z0-9_-]{43}$/;
export { DEFAULT_KEY_NAME } from "../fields";
/** lastUsedAt is a hint for people, not an audit log: writing it at most once a minute keeps verification cheap. */
export const LAST_USED_GRANULARITY_MS = 60_000;

export const hashKey = (plaintext: string): string => createHash("sha256").update(plaintext).digest("hex");

export interface CreateApiKeyInput {
  userId: string;
  /** Defaults to "API key". */
  name?: string | undefined;
  scopes: string[];
  expiresAt?: Date | undefined;
  /** Scopes of the credential asking; a key never gets one they lack. Ignored for operator calls. */
  granterScopes: string[];
  /** A trusted operator call (the CLI) that may grant any scope. */
  operator: boolean;
}

export interface CreatedApiKey {
  key: ApiKeyDoc;
  /** Shown once; never stored. */
  plaintext: string;
}

export const checkNewKey = (input: Pick<CreateApiKeyInput, "name" | "scopes" | "expiresAt">, now: Date): FieldError[] =>
  checkFields(newApiKeySchema(() => now), {
    name: input.name ?? DEFAULT_KEY_NAME,
    scopes: input.scopes,
    expiresAt: input.expiresAt?.toISOString(),
  });

/**
 * Mints a key for an active user; emits `api_key.created`. With `effectKey` (the request's idempotency key)
 * the key is recorded as that request's effect. The plaintext is never stored, so a re-run of a create
 * that already committed (its answer was lost in a crash) cannot return the same key: it revokes the
 * orphaned key and issues a fresh one with the same settings, leaving exactly one usable key per request.
 */
export const createApiKey = async (deps: AccountDeps, input: CreateApiKeyInput, effectKey?: string): Promise<CreatedApiKey> => {
  const now = deps.clock.now();
  const errors = checkNewKey(input, now);
  if (errors.length > 0) throw validationFailed(errors);
  const scopes = [...new Set(input.scopes)];
  if (!input.operator) {
    const missing = scopes.find((s) => !input.granterScopes.includes(s));
    if (missing) throw forbidden(`A key cannot grant the scope ${missing} it does not hold.`);
  }
  const user = input.userId ? await deps.collections.users.findById(input.userId) : null;
  if (!user) throw notFound("User");
  if (user.status !== "active") throw forbidden("A deactivated account cannot create API keys.");
  const mint = (): CreatedApiKey => {
    const plaintext = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
    const key: ApiKeyDoc = {
      _id: newId("key", now.getTime()),
      userId: user._id,
      workspaceId: user.workspaceId,
      name: (input.name ?? DEFAULT_KEY_NAME).trim(),
      hash: hashKey(plaintext),
      prefix: plaintext.slice(0, DISPLAY_PREFIX_LENGTH),
      scopes,
      createdAt: now,
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
      _v: 1,
    };
    return { key, plaintext };
  };
  const createFresh = async (): Promise<CreatedApiKey> => {
    const created = mint();
    await deps.outbox.commit(
      [{ kind: "insert", collection: API_KEYS, doc: created.key }],
      [apiKeyCreatedEvent(created.key)],
      effectKey ? { key: effectKey, resourceId: created.key._id } : undefined,
    );
    return created;
  };
  const reissue = (key: string) =>
    withVersionRetry(async () => {
      // Read again on every attempt: a racing re-run may have re-issued meanwhile (or the record expired).
      const effect = await deps.outbox.effectOf(key);
      if (!effect) return createFresh();
      const orphan = await deps.collections.apiKeys.findById(effect.resourceId);
      const fresh = mint();
      const writes: Write[] = [{ kind: "insert", collection: API_KEYS, doc: fresh.key }];
      const events: StagedEvent[] = [apiKeyCreatedEvent(fresh.key)];
      if (orphan && !orphan.revokedAt) {
        const revoked: ApiKeyDoc = { ...orphan, revokedAt: now };
        writes.push({ kind: "replace", collection: API_KEYS, doc: revoked, expectedVersion: orphan._v ?? 1 });
        events.push(apiKeyRevokedEvent(revoked));
      }
      await deps.outbox.commit(writes, events, { key, resourceId: fresh.key._id, replaces: effect });
      return fresh;
    });
  return runOnce(deps.outbox, effectKey, () => reissue(effectKey as string), createFresh);
};

export interface ListApiKeysInput {
  userId: string;
  /** 1..100; default 20. */
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A user's keys, newest first (ids sort by creation time), revoked and expired ones included. */
export const listApiKeys = async (deps: AccountDeps, input: ListApiKeysInput): Promise<Page<ApiKeyDoc>> => {
  const limit = pageLimit(input.limit);
  const user = input.userId ? await deps.collections.users.findById(input.userId) : null;
  if (!user) throw notFound("User");
  return withCursorErrors(() =>
    deps.collections.apiKeys.findPage({ userId: user._id }, { limit, cursor: input.cursor || null, sortField: "_id", direction: -1 }),
  );
};

/** Revokes one of the user's own keys at once (idempotent); emits `api_key.revoked` the first time. */
export const revokeApiKey = async (deps: AccountDeps, userId: string, keyId: string): Promise<ApiKeyDoc> =>
  withVersionRetry(async () => {
    const key = keyId ? await deps.collections.apiKeys.findById(keyId) : null;
    // Another user's key answers exactly like a missing one.
    if (!key || key.userId !== userId) throw notFound("API key");
    if (key.revokedAt) return key;
    const next: ApiKeyDoc = { ...key, revokedAt: deps.clock.now() };
    await deps.outbox.commit([{ kind: "replace", collection: API_KEYS, doc: next, expectedVersion: key._v ?? 1 }], [apiKeyRevokedEvent(next)]);
    return { ...next, _v: nextVersion(key) };
  });

export interface VerifiedKey {
  key: ApiKeyDoc;
  user: UserDoc;
  workspace: WorkspaceDoc;
  allowances: Allowances;
}

// One message for every refusal, so a caller cannot probe which keys exist, expired or were revoked.
const invalidKey = () => new DomainError("unauthorized", "The API key is invalid, expired or revoked.");

/** Resolves a presented plaintext to its key, user and allowances; refuses revoked, expired and deactivated. */
export const verifyApiKey = async (deps: AccountDeps, plaintext: string): Promise<VerifiedKey> => {
  if (!KEY_RE.test(plaintext)) throw invalidKey();
  const key = await deps.collections.apiKeys.findOne({ hash: hashKey(plaintext) });
  const now = deps.clock.now();
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) throw invalidKey();
  const user = await deps.collections.users.findById(key.userId);
  if (!user || user.status !== "active") throw invalidKey();
  const workspace = await workspaceOf(deps, user);
  const staleBefore = new Date(now.getTime() - LAST_USED_GRANULARITY_MS);
  if (!key.lastUsedAt || key.lastUsedAt.getTime() <= staleBefore.getTime()) {
    // The condition is repeated in the filter so concurrent verifications write once, not once each.
    await deps.collections.apiKeys.updateOne(
      { _id: key._id, $or: [{ lastUsedAt: { $exists: false } }, { lastUsedAt: { $lte: staleBefore } }] },
      { $set: { lastUsedAt: now } },
    );
  }
  return { key, user, workspace, allowances: allowancesOf(workspace.plan) };
};
