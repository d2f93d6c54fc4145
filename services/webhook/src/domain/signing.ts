import { createHmac } from "node:crypto";

// Standard Webhooks signatures: HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>` keyed with the
// secret's bytes (the base64 after `whsec_`), sent as `v1,<base64>`; several secrets (during a rotation)
// give several signatures, space-separated, any of which verifies.

export const signatureOf = (secret: string, id: string, timestamp: number, body: string): string => {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
};

export const signatureHeader = (secrets: readonly string[], id: string, timestamp: number, body: string): string =>
  secrets.map((s) => signatureOf(s, id, timestamp, body)).join(" ");
