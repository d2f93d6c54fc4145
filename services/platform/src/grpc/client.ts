import {
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientOptions,
  type ClientUnaryCall,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { DomainError } from "../errors";
import { currentRequestId } from "../logger";
import { currentIdempotencyKey, IDEMPOTENCY_KEY_METADATA_KEY } from "./call-context";
import { CALLER_METADATA_KEY, currentCaller, encodeCaller } from "./caller-context";
import { CALLER_SIGNATURE_METADATA_KEY, NO_CALLER, OPERATOR_SIGNATURE_METADATA_KEY, signCaller, signOperator } from "./caller-signature";
import { fromServiceError, isServiceError } from "./error-mapping";
import type { InProcessChannel } from "./in-process";
import { REQUEST_ID_METADATA_KEY } from "./server";
import { type GrpcTls, grpcChannelCredentials, grpcTlsChannelOptions } from "./tls";

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** The promise form of a ts-proto client: `(request, options?) => Promise<response>` per unary method. */
export type AsyncClient<C> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [K in keyof C as C[K] extends (...args: any[]) => ClientUnaryCall ? K : never]: C[K] extends UnaryMethod<infer Req, infer Res>
    ? (request: Req, options?: CallOpts) => Promise<Res>
    : never;
};

export interface CallOpts {
  /** Milliseconds before the call is abandoned; defaults to the client's. */
  deadlineMs?: number;
  /** Overrides the read/write classification of the method for retries. */
  retryUnavailable?: boolean;
  /**
   * Cancels the call when aborted (the edge's client went away): the server's handler sees its own signal
   * abort, and the call fails as unavailable. Not retried after.
   */
  signal?: AbortSignal;
}

/** A generated client class (ts-proto `outputServices=grpc-js`) whose instances are `C`. */
export interface GeneratedClientCtor<C> {
  new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>): C;
  service: Record<string, unknown>;
}

export interface GrpcClientOptions {
  /** Default deadline of each call. */
  deadlineMs?: number;
  /** Attempts for reads that fail with UNAVAILABLE (writes are never retried: they may have happened). */
  readAttempts?: number;
  /** Backoff before the second attempt; doubles each time. */
  retryBackoffMs?: number;
  /** Method names (camelCase) that are reads. Defaults to names starting with get, list, count, check, verify or find. */
  isRead?: (method: string) => boolean;
  /** EARSHOT_CALLER_SIGNING_KEY: signs each call, over the caller it carries (the edge's, the services'). */
  callerSigningKey?: string;
  /** EARSHOT_OPERATOR_KEY: signs every call as the operator's (the CLI's). */
  operatorKey?: string;
  /** Mutual TLS (EARSHOT_GRPC_TLS_*): present this certificate and check the server's. None: plaintext. */
  tls?: GrpcTls;
  /**
   * The services hosted in this process (the all-in-one): calls to the methods it serves skip the
   * socket, keeping the codec, the metadata, the server's checks, the error mapping and the deadline.
   */
  inProcess?: InProcessChannel;
}

export interface GrpcClientHandle<C> {
  client: AsyncClient<C>;
  /** The raw generated client, for the rare caller that needs streaming or its channel. */
  raw: C & Client;
  close(): void;
}

const READ_PREFIX = /^(get|list|count|check|verify|find|search|resolve)/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One channel per address, reused by every call (grpc-js multiplexes calls over one HTTP/2 connection).
 * Each call carries the current request id (and idempotency key and caller, when set) and a deadline;
 * reads are retried on UNAVAILABLE.
 */
export const createGrpcClient = <C>(
  Ctor: GeneratedClientCtor<C>,
  address: string,
  options: GrpcClientOptions = {},
): GrpcClientHandle<C> => {
  const raw = new Ctor(address, grpcChannelCredentials(options.tls), {
    ...grpcTlsChannelOptions(options.tls),
    "grpc.keepalive_time_ms": 30000,
    "grpc.keepalive_timeout_ms": 10000,
    "grpc.enable_retries": 0,
    // Services restart and move often (rollouts); reconnect quickly so read retries find the new one.
    "grpc.initial_reconnect_backoff_ms": 100,
    "grpc.max_reconnect_backoff_ms": 2000,
  }) as C & Client;
  const deadlineMs = options.deadlineMs ?? 5000;
  const attempts = Math.max(1, options.readAttempts ?? 3);
  const backoff = options.retryBackoffMs ?? 50;
  const isRead = options.isRead ?? ((m: string) => READ_PREFIX.test(m));

  const client = {} as Record<string, (req: unknown, opts?: CallOpts) => Promise<unknown>>;
  for (const method of Object.keys(Ctor.service)) {
    const fn = (raw as unknown as Record<string, UnaryMethod<unknown, unknown>>)[method];
    if (typeof fn !== "function") continue;
    const path = (Ctor.service[method] as { path?: string } | undefined)?.path ?? method;
    const read = isRead(method);
    const local = options.inProcess;
    // One function per method, chosen once: the call below allocates only its metadata and its promise.
    const send: (...args: Parameters<UnaryMethod<unknown, unknown>>) => { cancel(): void } =
      local?.has(path)
        ? (request, metadata, callOptions, callback) => local.unary(path, request, metadata, callOptions.deadline as number, callback)
        : (request, metadata, callOptions, callback) => fn.call(raw, request, metadata, callOptions, callback);
    client[method] = async (request, opts) => {
      const deadline = Date.now() + (opts?.deadlineMs ?? deadlineMs);
      const max = (opts?.retryUnavailable ?? read) ? attempts : 1;
      const current = currentCaller();
      const caller = current ? encodeCaller(current) : undefined;
      for (let attempt = 1; ; attempt++) {
        const metadata = new Metadata();
        const requestId = currentRequestId();
        if (requestId) metadata.set(REQUEST_ID_METADATA_KEY, requestId);
        const idempotencyKey = currentIdempotencyKey();
        if (idempotencyKey) metadata.set(IDEMPOTENCY_KEY_METADATA_KEY, idempotencyKey);
        if (caller) metadata.set(CALLER_METADATA_KEY, caller);
        // Signed whether or not it carries a caller: a service with the key refuses any call not signed.
        if (options.callerSigningKey) metadata.set(CALLER_SIGNATURE_METADATA_KEY, signCaller(options.callerSigningKey, path, caller ?? NO_CALLER));
        if (options.operatorKey) metadata.set(OPERATOR_SIGNATURE_METADATA_KEY, signOperator(options.operatorKey, path));
        try {
          return await new Promise((resolve, reject) => {
            const signal = opts?.signal;
            const onAbort = () => call.cancel();
            const call = send(request, metadata, { deadline }, (err, res) => {
              signal?.removeEventListener("abort", onAbort);
              if (err) reject(err);
              else resolve(res);
            });
            if (signal?.aborted) call.cancel();
            else signal?.addEventListener("abort", onAbort);
          });
        } catch (err) {
          const retryable = isServiceError(err) && err.code === status.UNAVAILABLE && !err.metadata?.get("earshot-error-code").length;
          const wait = backoff * 2 ** (attempt - 1);
          if (retryable && attempt < max && Date.now() + wait < deadline && !opts?.signal?.aborted) {
            await sleep(wait);
            continue;
          }
          throw isServiceError(err) ? fromServiceError(err) : new DomainError("internal", "Internal error.", { cause: err });
        }
      }
    };
  }
  return { client: client as unknown as AsyncClient<C>, raw, close: () => raw.close() };
};
