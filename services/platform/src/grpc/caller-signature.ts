import { createHmac, timingSafeEqual } from "node:crypto";
import { DomainError } from "../errors";

// A service behind a cluster network must not believe a caller just because a pod sent one: the edge signs
// the encoded Caller it sends (HMAC-SHA256 with EARSHOT_CALLER_SIGNING_KEY, valid for a minute), and the
// operator CLI signs operator-only calls with the separate EARSHOT_OPERATOR_KEY. Each signature names the
// full gRPC method it is for, so one cannot be replayed against another method.

export const CALLER_SIGNATURE_METADATA_KEY = "earshot-caller-signature";
export const OPERATOR_SIGNATURE_METADATA_KEY = "earshot-operator-signature";
/** How long a signature stays valid: a call's deadline plus clock skew between pods. */
export const SIGNATURE_TTL_MS = 60_000;

const mac = (key: string, parts: Array<string | Buffer>): Buffer => {
  const h = createHmac("sha256", key);
  for (const p of parts) h.update(typeof p === "string" ? `${p.length}:${p}` : Buffer.concat([Buffer.from(`${p.length}:`), p]));
  return h.digest();
};

const sign = (key: string, kind: string, method: string, body: Buffer, nowMs: number): string => {
  const expires = String(nowMs + SIGNATURE_TTL_MS);
  return `${expires}.${mac(key, [kind, method, expires, body]).toString("base64url")}`;
};

/** Why a signature is refused, or undefined when it is valid now. */
const problem = (key: string, kind: string, method: string, body: Buffer, signature: string | undefined, nowMs: number): string | undefined => {
  if (!signature) return "is missing";
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]+)$/.exec(signature);
  if (!m) return "is malformed";
  const expires = Number(m[1]);
  const given = Buffer.from(m[2]!, "base64url");
  const expected = mac(key, [kind, method, m[1]!, body]);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "does not match";
  if (expires <= nowMs) return "has expired";
  // A signature valid far into the future was not made by an edge following the rule.
  if (expires > nowMs + 2 * SIGNATURE_TTL_MS) return "expires too late";
  return undefined;
};

/** The signature of an encoded Caller for one method (`/earshot.account.v1.AccountService/GetUser`). */
export const signCaller = (key: string, method: string, caller: Buffer, nowMs = Date.now()): string => sign(key, "caller", method, caller, nowMs);

/** The operator's signature of a call to one method. */
export const signOperator = (key: string, method: string, nowMs = Date.now()): string => sign(key, "operator", method, Buffer.alloc(0), nowMs);

export interface CallVerification {
  /** EARSHOT_CALLER_SIGNING_KEY: when set, every caller must be signed with it. */
  callerSigningKey?: string;
  /** EARSHOT_OPERATOR_KEY: when set, operator calls must be signed with it. */
  operatorKey?: string;
  now?: () => number;
}

const single = (values: Array<string | Buffer>): string | undefined => (values.length === 1 && typeof values[0] === "string" ? values[0] : undefined);

/** Refuses a call whose caller is not signed with the key (when one is configured); an unsigned call with no caller passes. */
export const verifyCallerSignature = (
  verification: CallVerification,
  method: string,
  callerValues: Array<string | Buffer>,
  signatureValues: Array<string | Buffer>,
): void => {
  const key = verification.callerSigningKey;
  if (!key || callerValues.length === 0) return;
  const raw = callerValues[0];
  const why = Buffer.isBuffer(raw) ? problem(key, "caller", method, raw, single(signatureValues), (verification.now ?? Date.now)()) : "is missing";
  if (why) throw new DomainError("unauthorized", `The caller's signature ${why}.`);
};

/**
 * Whether a call may act as the operator: with an operator key configured, only when signed with it; with
 * neither key (the embedded default, one machine), always; with a caller key but no operator key, never.
 */
export const isOperatorCall = (verification: CallVerification, method: string, signatureValues: Array<string | Buffer>): boolean => {
  if (verification.operatorKey) {
    return problem(verification.operatorKey, "operator", method, Buffer.alloc(0), single(signatureValues), (verification.now ?? Date.now)()) === undefined;
  }
  return !verification.callerSigningKey;
};
