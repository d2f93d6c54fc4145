import { performance } from "node:perf_hooks";
import { type AddressGuardOptions, guardedRequest } from "@earshot/platform";
import type { SendRequest, SendResult } from "./domain/deps";

// The outbound side of a delivery: the platform's guarded request, extended to a pinned POST. Every
// address the host resolves to is checked (unless private networks are allowed) and the connection goes to
// the checked one; TLS is verified, redirects are failures, never followed; the whole exchange has a time
// limit; only the first 2 KB of the answer is read. Connections to a receiver's checked address are reused.

export const SEND_TIMEOUT_MS = 10_000;
export const RESPONSE_BYTES = 2048;

/** The answer's headers a chat provider paces by; the others are not kept. */
const RATE_HEADERS = /^(retry-after|x-ratelimit-[a-z-]+)$/;

const rateHeadersOf = (headers: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers)
      .filter(([k, v]) => RATE_HEADERS.test(k.toLowerCase()) && v !== undefined)
      .map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? (v[0] ?? "") : (v as string)]),
  );

export interface SenderOptions extends AddressGuardOptions {
  timeoutMs?: number;
  /** CAs to trust instead of the system's (PEM); NODE_EXTRA_CA_CERTS is the usual way to add one. */
  ca?: string | string[];
}

export const guardedSender =
  (options: SenderOptions) =>
  async (request: SendRequest): Promise<SendResult> => {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const res = await guardedRequest(request.url, {
        method: "POST",
        headers: request.headers,
        body: request.body,
        timeoutMs: options.timeoutMs ?? SEND_TIMEOUT_MS,
        maxBytes: RESPONSE_BYTES,
        truncate: true,
        // One TLS handshake per receiver and address, not per delivery.
        keepAlive: true,
        ...(options.allowPrivateNetworks ? { allowPrivateNetworks: true } : {}),
        ...(options.resolve ? { resolve: options.resolve } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
      });
      return { statusCode: res.status, durationMs: took(), response: res.text, error: "", headers: rateHeadersOf(res.headers) };
    } catch (err) {
      const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
      const message = /timeout|aborted/i.test(text) ? `timed out: no answer within ${timeoutMs / 1000} s` : err instanceof Error ? err.message : text;
      return { statusCode: 0, durationMs: took(), response: "", error: message.slice(0, RESPONSE_BYTES) };
    }
  };
