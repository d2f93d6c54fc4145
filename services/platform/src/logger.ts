import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type Logger } from "pino";

export type { Logger } from "pino";

// The request id of the work in progress travels in async context, so every log line written while
// serving a request carries it without passing it by hand (and the gRPC client copies it to metadata).
// The caller and the idempotency key the edge sets around an operation travel in the same context
// (grpc/caller-context.ts, grpc/call-context.ts): one AsyncLocalStorage, because each one enabled adds
// its own work to every promise and callback the process creates.
export interface RequestContext {
  requestId?: string;
  /** earshot.common.v1.Caller, typed where it is read. */
  caller?: unknown;
  idempotencyKey?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` in a fresh context holding only `requestId` (a new request: no caller, no idempotency key). */
export const runWithRequestId = <T>(requestId: string, fn: () => T): T => requestContext.run({ requestId }, fn);

export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;

export interface LoggerOptions {
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: pino.DestinationStream;
}

export const createLogger = (name: string, options: LoggerOptions = {}): Logger =>
  pino(
    {
      name,
      level: options.level ?? "info",
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
      redact: { paths: ["password", "*.password", "apiKey", "*.apiKey", "authorization", "*.authorization"], censor: "[redacted]" },
    },
    options.destination ?? pino.destination({ sync: false }),
  );

/** A logger that writes nothing, for tests that do not read logs. */
export const silentLogger = (): Logger => pino({ level: "silent" });
