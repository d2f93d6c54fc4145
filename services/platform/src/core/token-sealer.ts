import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// Secrets at rest (provider tokens, webhook signing secrets): AES-256-GCM with a random 96-bit nonce per seal, stored as
// `v1.<nonce>.<ciphertext>.<tag>` (base64url). The version prefix leaves room for key rotation; a token
// sealed under another key, or altered, fails to open rather than decrypting to garbage.

const VERSION = "v1";

export class TokenSealer {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("the encryption key must be 32 bytes");
    this.key = key;
  }

  seal(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return [VERSION, nonce.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
  }

  open(sealed: string): string {
    const [version, nonce, body, tag] = sealed.split(".");
    if (version !== VERSION || nonce === undefined || body === undefined || tag === undefined) throw new Error("not a sealed token");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonce, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }
}

/** A key as configured: 32 bytes written as 64 hex digits or as base64 (url-safe or not). */
export const parseEncryptionKey = (text: string): Buffer => {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, "hex") : Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (key.length !== 32) throw new Error("EARSHOT_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64");
  return key;
};
