import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

// The token of an alert email's one-click unsubscribe link (RFC 8058): it lets whoever holds the email turn
// that one alert off, without signing in, and nothing else. The digest service signs it into each email;
// the edge checks it. Both derive the same HMAC key from EARSHOT_ENCRYPTION_KEY (HKDF with this purpose as
// its info), so no new secret is shared and the key opens nothing but these links.
//
// `u1.<claims>.<mac>`, base64url: the claims name the alert, its project, the person it acts for, a random
// nonce (the edge records a token's use under it, so each works once) and an expiry. The purpose is in the
// MAC's input too: a MAC made for anything else never verifies here.

const VERSION = "u1";
const PURPOSE = "earshot unsubscribe link v1";
/** How long an email's link keeps working: long enough for an old email, bounded so a leaked one lapses. */
export const UNSUBSCRIBE_TOKEN_DAYS = 60;

export interface UnsubscribeClaims {
  alertId: string;
  projectId: string;
  /** The recipient, as whom the alert is turned off (the pipeline checks they still may). */
  userId: string;
  /** Random, per email: the edge keeps a used token's nonce so the link works once. */
  nonce: string;
  /** When the link stops working. */
  expiresAt: Date;
}

/** The links' HMAC key, derived from the 32-byte encryption key for this one purpose. */
export const unsubscribeLinkKey = (encryptionKey: Buffer): Buffer => Buffer.from(hkdfSync("sha256", encryptionKey, Buffer.alloc(0), PURPOSE, 32));

const macOf = (key: Buffer, claims: string) => createHmac("sha256", key).update(`${PURPOSE}\n${VERSION}.${claims}`).digest();

export const signUnsubscribeToken = (key: Buffer, c: Omit<UnsubscribeClaims, "nonce" | "expiresAt"> & { now: Date; nonce?: string }): string => {
  const claims = {
    a: c.alertId,
    p: c.projectId,
    u: c.userId,
    n: c.nonce ?? randomBytes(12).toString("base64url"),
    x: Math.floor(c.now.getTime() / 1000) + UNSUBSCRIBE_TOKEN_DAYS * 86_400,
  };
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${VERSION}.${body}.${macOf(key, body).toString("base64url")}`;
};

export type UnsubscribeCheck = { ok: true; claims: UnsubscribeClaims } | { ok: false; reason: "malformed" | "forged" | "expired" };

const isId = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 64;

/** The token's claims when its MAC is this key's and it has not expired; why not otherwise. */
export const verifyUnsubscribeToken = (key: Buffer, token: string, now: Date): UnsubscribeCheck => {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION || !/^[\w-]{1,1024}$/.test(parts[1] ?? "") || !/^[\w-]{43}$/.test(parts[2] ?? "")) return { ok: false, reason: "malformed" };
  const [, body = "", mac = ""] = parts;
  if (!timingSafeEqual(macOf(key, body), Buffer.from(mac, "base64url"))) return { ok: false, reason: "forged" };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (!isId(raw.a) || !isId(raw.p) || !isId(raw.u) || !isId(raw.n) || typeof raw.x !== "number" || !Number.isFinite(raw.x)) return { ok: false, reason: "malformed" };
  const expiresAt = new Date(raw.x * 1000);
  if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: "expired" };
  return { ok: true, claims: { alertId: raw.a, projectId: raw.p, userId: raw.u, nonce: raw.n, expiresAt } };
};
