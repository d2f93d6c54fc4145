import { createHash, randomBytes } from "node:crypto";
import {
  ALL_SCOPES,
  DomainError,
  forbidden,
  InvalidCursorError,
  newId,
  notFound,
  type Page,
  validationFailed,
  type FieldError,
} from "@earshot/platform";
import type { ApiKeyDoc, UserDoc } from "../store";
import { API_KEYS } from "../store";
import { type AccountDeps, SOURCE } from "./deps";
import { type Allowances, allowancesOf } from "./plans";

// API keys: `svc_sk_` + 32 random bytes (base64url). Only a SHA-256 of the plaintext is stored, with a
// short display prefix; the plaintext exists once, in the create response.

export const KEY_PREFIX = "svc_sk_";
const DISPLAY_PREFIX_LENGTH = 11;
/** lastUsedAt is a hint for people, not an audit log: writing it at most once a minute keeps verification cheap. */
const LAST_USED_GRANULARITY_MS = 60_000;

export const hashKey = (plaintext: string): string => createHash("sha256").update(plaintext).digest("hex");

export interface CreateApiKeyInput {
  userId: string;
  name: string;
  scopes: string[];
  expiresAt?: Date;
  /** Scopes of the credential asking; ignored for operator calls. */
  granterScopes: string[];
  operator: boolean;
}

export const createApiKey = async (deps: AccountDeps, input: CreateApiKeyInput): Promise<{ key: ApiKeyDoc; plaintext: string }> => {
  const now = deps.clock.now();
  const errors: FieldError[] = [];
  const name = (input.name || "API key").trim();
  if (name.length < 1 || name.length > 100) errors.push({ path: "name", message: "must be 1 to 100 characters" });
  if (input.scopes.length === 0) errors.push({ path: "scopes", message: "must name at least one scope" });
  input.scopes.forEach((s, i) => {
    if (!ALL_SCOPES.includes(s)) errors.push({ path: `scopes.${i}`, message: `is not a scope; scopes are ${ALL_SCOPES.join(", ")}` });
  });
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) errors.push({ path: "expiresAt", message: "must be in the future" });
  if (errors.length > 0) throw validationFailed(errors);
  const scopes = [...new Set(input.scopes)];
  if (!input.operator) {
    const missing = scopes.find((s) => !input.granterScopes.includes(s));
    if (missing) throw forbidden(`A key cannot grant the scope ${missing}, which the credential creating it does not hold.`);
  }
  const user = await deps.collections.users.findById(input.userId);
  if (!user) throw notFound("User");
  if (user.status !== "active") throw forbidden("A deactivated account cannot create keys.");
  const plaintext = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  const key: ApiKeyDoc = {
    _id: newId("key", now.getTime()),
    userId: user._id,
    workspaceId: user.workspaceId,
    name,
    hash: hashKey(plaintext),
    prefix: plaintext.slice(0, DISPLAY_PREFIX_LENGTH),
    scopes,
    createdAt: now,
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
    _v: 1,
  };
  await deps.outbox.commit(
    [{ kind: "insert", collection: API_KEYS, doc: key }],
    [{ type: "api_key.created", source: SOURCE, subject: key._id, key: user.workspaceId, data: { keyId: key._id, userId: user._id, scopes } }],
  );
  return { key, plaintext };
};

export const listApiKeys = async (deps: AccountDeps, userId: string, limit: number, cursor: string | undefined): Promise<Page<ApiKeyDoc>> => {
  const errors: FieldError[] = [];
  const size = limit === 0 ? 20 : limit;
  if (!Number.isInteger(size) || size < 1 || size > 100) errors.push({ path: "limit", message: "must be 1 to 100" });
  if (errors.length > 0) throw validationFailed(errors);
  try {
    return await deps.collections.apiKeys.findPage({ userId }, { limit: size, cursor: cursor || null, direction: -1 });
  } catch (err) {
    if (err instanceof InvalidCursorError) throw validationFailed([{ path: "cursor", message: "is not a cursor this list returned" }]);
    throw err;
  }
};

export const revokeApiKey = async (deps: AccountDeps, userId: string, keyId: string): Promise<ApiKeyDoc> => {
  const key = await deps.collections.apiKeys.findById(keyId);
  // Another user's key answers exactly like a missing one.
  if (!key || key.userId !== userId) throw notFound("API key");
  if (key.revokedAt) return key;
  const next: ApiKeyDoc = { ...key, revokedAt: deps.clock.now() };
  await deps.outbox.commit(
    [{ kind: "replace", collection: API_KEYS, doc: next, expectedVersion: key._v ?? 1 }],
    [{ type: "api_key.revoked", source: SOURCE, subject: key._id, key: key.workspaceId, data: { keyId: key._id, userId } }],
  );
  return { ...next, _v: (key._v ?? 1) + 1 };
};

export interface VerifiedKey {
  key: ApiKeyDoc;
  user: UserDoc;
  allowances: Allowances;
}

const invalidKey = () => new DomainError("unauthorized", "The API key is invalid, expired or revoked.");

export const verifyApiKey = async (deps: AccountDeps, plaintext: string): Promise<VerifiedKey> => {
  if (!plaintext.startsWith(KEY_PREFIX) || plaintext.length > 200) throw invalidKey();
  const key = await deps.collections.apiKeys.findOne({ hash: hashKey(plaintext) });
  const now = deps.clock.now();
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) throw invalidKey();
  const user = await deps.collections.users.findById(key.userId);
  if (!user || user.status !== "active") throw invalidKey();
  const workspace = await deps.collections.workspaces.findById(user.workspaceId);
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS) {
    await deps.collections.apiKeys.updateOne({ _id: key._id }, { $set: { lastUsedAt: now } });
  }
  return { key, user, allowances: allowancesOf(workspace?.plan ?? "free") };
};
