import { requestContext } from "../logger";

// The idempotency key of the request being served travels in async context, like the request id: the edge
// sets it around an operation's handler, and the gRPC client copies it into the metadata of each call, so a
// create verb can record its effect under it (outbox/effects.ts) without every handler passing it by hand.

export const IDEMPOTENCY_KEY_METADATA_KEY = "x-idempotency-key";

/** What the metadata may carry: the edge sends a base64url digest; anything else is ignored. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** Runs `fn` with calls it makes carrying `key` (and the request id and caller around it); with no key, just runs it. */
export const runWithIdempotencyKey = <T>(key: string | undefined, fn: () => T): T =>
  key ? requestContext.run({ ...requestContext.getStore(), idempotencyKey: key }, fn) : fn();

export const currentIdempotencyKey = (): string | undefined => requestContext.getStore()?.idempotencyKey;
