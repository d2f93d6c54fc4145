import { createHmac, randomBytes } from "node:crypto";
import { signUnsubscribeToken, UNSUBSCRIBE_TOKEN_DAYS, unsubscribeLinkKey, verifyUnsubscribeToken } from "./unsubscribe-token";

const encryptionKey = Buffer.alloc(32, 7);
const key = unsubscribeLinkKey(encryptionKey);
const now = new Date("2026-11-28T10:00:00Z");
const claims = { alertId: "alr_1", projectId: "prj_1", userId: "usr_1", now };

describe("unsubscribe link tokens", () => {
  test("a signed token verifies with its claims and expires after 60 days", () => {
    const token = signUnsubscribeToken(key, claims);
    const check = verifyUnsubscribeToken(key, token, now);
    expect(check).toMatchObject({ ok: true, claims: { alertId: "alr_1", projectId: "prj_1", userId: "usr_1" } });
    const expiresAt = check.ok ? check.claims.expiresAt.getTime() : 0;
    expect(expiresAt).toBe(now.getTime() + UNSUBSCRIBE_TOKEN_DAYS * 86_400_000);
    expect(verifyUnsubscribeToken(key, token, new Date(expiresAt - 1)).ok).toBe(true);
    expect(verifyUnsubscribeToken(key, token, new Date(expiresAt))).toEqual({ ok: false, reason: "expired" });
  });

  test("each email's token has its own nonce", () => {
    const a = verifyUnsubscribeToken(key, signUnsubscribeToken(key, claims), now);
    const b = verifyUnsubscribeToken(key, signUnsubscribeToken(key, claims), now);
    expect(a.ok && b.ok && a.claims.nonce !== b.claims.nonce).toBe(true);
  });

  test("refuses a token whose claims were changed to another alert", () => {
    const [v, body, mac] = signUnsubscribeToken(key, claims).split(".");
    const other = Buffer.from(Buffer.from(body!, "base64url").toString().replace("alr_1", "alr_2")).toString("base64url");
    expect(verifyUnsubscribeToken(key, `${v}.${other}.${mac}`, now)).toEqual({ ok: false, reason: "forged" });
  });

  test("refuses a token of another key, and a MAC of the same key made for another purpose", () => {
    const otherKey = unsubscribeLinkKey(randomBytes(32));
    expect(verifyUnsubscribeToken(otherKey, signUnsubscribeToken(key, claims), now)).toEqual({ ok: false, reason: "forged" });
    // The encryption key itself never verifies a link: the link key is derived for this purpose only.
    expect(verifyUnsubscribeToken(encryptionKey, signUnsubscribeToken(key, claims), now)).toEqual({ ok: false, reason: "forged" });
    const body = signUnsubscribeToken(key, claims).split(".")[1]!;
    const plainMac = createHmac("sha256", key).update(body).digest("base64url");
    expect(verifyUnsubscribeToken(key, `u1.${body}.${plainMac}`, now)).toEqual({ ok: false, reason: "forged" });
  });

  test("refuses malformed tokens without throwing", () => {
    const mac = "A".repeat(43);
    for (const token of ["", "u1", "u1..", "u2.e30." + mac, `u1.${"!".repeat(10)}.${mac}`, `u1.e30.short`, `u1.${"a".repeat(2000)}.${mac}`]) {
      expect(verifyUnsubscribeToken(key, token, now)).toEqual({ ok: false, reason: "malformed" });
    }
    // Well signed but not the claims a link carries.
    const sign = (json: string) => {
      const body = Buffer.from(json).toString("base64url");
      return `u1.${body}.${createHmac("sha256", key).update(`earshot unsubscribe link v1\nu1.${body}`).digest("base64url")}`;
    };
    expect(verifyUnsubscribeToken(key, sign("not json"), now)).toEqual({ ok: false, reason: "malformed" });
    expect(verifyUnsubscribeToken(key, sign(JSON.stringify({ a: "alr_1", p: "prj_1", u: "usr_1", n: "n", x: "soon" })), now)).toEqual({ ok: false, reason: "malformed" });
    expect(verifyUnsubscribeToken(key, sign(JSON.stringify({ a: "", p: "prj_1", u: "usr_1", n: "n", x: 1e12 })), now)).toEqual({ ok: false, reason: "malformed" });
    expect(verifyUnsubscribeToken(key, sign(JSON.stringify({ a: "alr_1", p: "prj_1", u: "usr_1", n: "n", x: 1e12 })), now).ok).toBe(true);
  });
});
