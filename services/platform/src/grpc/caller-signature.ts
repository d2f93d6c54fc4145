import { createHmac, timingSafeEqual } from "node:crypto";
import { DomainError } from "../errors";

// A service must not believe a call just because something reached its port (a pod of the cluster, or any
// process of any user on the machine, for the all-in-one's loopback ports): the edge and the services sign
// every call they make, over the encoded Caller it carries or over nothing when it acts for nobody
// (HMAC-SHA256 with EARSHOT_CALLER_SIGNING_KEY, valid for a minute), and the operator CLI signs its calls
// with the separate EARSHOT_OPERATOR_KEY. With a caller signing key configured, a call signed with neither
// is refused before its handler runs. Each signature names the full gRPC method it is for, so one cannot be
// replayed against another method.

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

/** What a call that acts for nobody (sign-in, an internal read) signs in place of an encoded Caller. */
export const NO_CALLER = Buffer.alloc(0);

/**
 * The signature of an encoded Caller for one method (`/earshot.account.v1.AccountService/GetUser`); of
 * `NO_CALLER` for a call that carries none.
 */
export const signCaller = (key: string, method: string, caller: Buffer, nowMs = Date.now()): string => sign(key, "caller", method, caller, nowMs);

/** The operator's signature of a call to one method. */
export const signOperator = (key: string, method: string, nowMs = Date.now()): string => sign(key, "operator", method, NO_CALLER, nowMs);

export interface CallVerification {
  /** EARSHOT_CALLER_SIGNING_KEY: when set, every call must be signed with it (or be a valid operator call). */
  callerSigningKey?: string;
  /** EARSHOT_OPERATOR_KEY: when set, operator calls must be signed with it. */
  operatorKey?: string;
  now?: () => number;
}

const single = (values: Array<string | Buffer>): string | undefined => (values.length === 1 && typeof values[0] === "string" ? values[0] : undefined);

/**
 * Refuses, when a caller signing key is configured, a call not signed with it: one carrying a caller must
 * have that caller signed; one carrying none must be signed over nothing, or carry the operator's
 * signature (made with the operator key, valid). Without the key, nothing is checked (a service run
 * without keys, as tests host one).
 */
export const verifyCallerSignature = (
  verification: CallVerification,
  method: string,
  callerValues: Array<string | Buffer>,
  signatureValues: Array<string | Buffer>,
  operatorValues: Array<string | Buffer> = [],
): void => {
  const key = verification.callerSigningKey;
  if (!key) return;
  const now = (verification.now ?? Date.now)();
  if (callerValues.length === 0) {
    if (operatorValues.length > 0 && signatureValues.length === 0) {
      const why = verification.operatorKey ? problem(verification.operatorKey, "operator", method, NO_CALLER, single(operatorValues), now) : "is not taken here (no operator key is configured)";
      if (why) throw new DomainError("unauthorized", `The operator's signature ${why}.`);
      return;
    }
    const why = problem(key, "caller", method, NO_CALLER, single(signatureValues), now);
    if (why) throw new DomainError("unauthorized", `The call's signature ${why}.`);
    return;
  }
  const raw = callerValues[0];
  const why = Buffer.isBuffer(raw) ? problem(key, "caller", method, raw, single(signatureValues), now) : "is missing";
  if (why) throw new DomainError("unauthorized", `The caller's signature ${why}.`);
};

/**
 * Whether a call may act as the operator: with an operator key configured, only when signed with it; with
 * neither key (a service run without them, as tests host one; it checks nothing), always; with a caller key but no
 * operator key, never. The all-in-one always has both (made in its data directory at first start).
 */
export const isOperatorCall = (verification: CallVerification, method: string, signatureValues: Array<string | Buffer>): boolean => {
  if (verification.operatorKey) {
    return problem(verification.operatorKey, "operator", method, NO_CALLER, single(signatureValues), (verification.now ?? Date.now)()) === undefined;
  }
  return !verification.callerSigningKey;
};
