import { randomBytes } from "node:crypto";
import type { SealedSecretDoc } from "../store";
import type { WebhookDeps } from "./deps";

// Signing secrets in the Standard Webhooks form: `whsec_` and 24 random bytes in base64, the key the
// receiver's library decodes. Only the sealed form is stored; the plaintext leaves the service in the
// answer to a create or a rotation and nowhere else (no log line, no event).

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export const newSecret = (): string => `whsec_${randomBytes(24).toString("base64")}`;

export const sealSecret = (deps: WebhookDeps, plain: string, now: Date): SealedSecretDoc => ({ sealed: deps.sealer.seal(plain), createdAt: now });

/** The secrets after a rotation: the new one first, the current ones signing until the overlap ends, expired ones gone. */
export const rotatedSecrets = (current: SealedSecretDoc[], fresh: SealedSecretDoc, now: Date): SealedSecretDoc[] => [
  fresh,
  ...current
    .filter((s) => !s.expiresAt || s.expiresAt > now)
    .map((s) => ({ ...s, expiresAt: s.expiresAt ?? new Date(now.getTime() + ROTATION_OVERLAP_MS) })),
];
