import {
  Server,
  status,
  type handleUnaryCall,
  type Metadata,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { DomainError } from "../errors";
import { newId } from "../ids";
import { type Logger, runWithRequestId } from "../logger";
import { IDEMPOTENCY_KEY_METADATA_KEY, IDEMPOTENCY_KEY_PATTERN } from "./call-context";
import { CALLER_METADATA_KEY, type CallerContext, readCaller } from "./caller-context";
import { CALLER_SIGNATURE_METADATA_KEY, type CallVerification, isOperatorCall, OPERATOR_SIGNATURE_METADATA_KEY, verifyCallerSignature } from "./caller-signature";
import type { RpcMetrics } from "../metrics/rpc-metrics";
import { toDomainError, toStatusObject } from "./error-mapping";
import { type GrpcTls, grpcServerCredentials } from "./tls";
import { type InProcessCall, type InProcessChannel, MAX_REQUEST_BYTES } from "./in-process";

export const REQUEST_ID_METADATA_KEY = "x-request-id";

export interface RpcContext {
  requestId: string;
  /**
   * The idempotency key of the client request this call serves (scoped to its caller and payload by the
   * edge). Create verbs record their effect under it, so a re-run after a crash finds the first result.
   */
  idempotencyKey: string | undefined;
  /**
   * Who the call acts for, decoded and checked once from the metadata (`earshot-caller-bin`); undefined
   * for calls that act for nobody (operator, sign-in, internal). RPCs acting for a person use
   * `requireCaller(ctx)`.
   */
  caller: CallerContext | undefined;
  /**
   * Whether the call may act as the operator (mint keys for others): signed with EARSHOT_OPERATOR_KEY, or
   * any call when the server verifies no signatures at all (a service run without keys, as tests host one).
   */
  operator: boolean;
  metadata: Metadata;
  /** Aborted when the client cancels or its deadline passes. */
  signal: AbortSignal;
  deadline: Date | undefined;
}

/** The async form of a ts-proto `...Server` interface: `(request, ctx) => Promise<response>` per method. */
export type AsyncService<S> = {
  // `string extends K` drops grpc-js's index signature, keeping only the declared methods.
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res> ? (request: Req, ctx: RpcContext) => Promise<Res> : never;
};

const CANCELLED = new DomainError("unavailable", "The call was cancelled.");

const readRequestId = (metadata: Metadata): string => {
  const value = metadata.get(REQUEST_ID_METADATA_KEY)[0];
  return typeof value === "string" && /^[\w.:-]{1,128}$/.test(value) ? value : newId("req");
};

const readIdempotencyKey = (metadata: Metadata): string | undefined => {
  const value = metadata.get(IDEMPOTENCY_KEY_METADATA_KEY)[0];
  return typeof value === "string" && IDEMPOTENCY_KEY_PATTERN.test(value) ? value : undefined;
};

/** What a handler reads of a call, over the network (grpc-js) or in process. */
type UnaryCall = ServerUnaryCall<unknown, unknown> | InProcessCall;

const deadlineOf = (call: UnaryCall): Date | undefined => {
  const d = call.getDeadline();
  if (d instanceof Date) return d;
  return typeof d === "number" && Number.isFinite(d) ? new Date(d) : undefined;
};

/**
 * Adapts async handlers to grpc-js callbacks: runs each call in its request-id context, decodes its caller,
 * passes a cancellation signal, maps thrown domain errors to status + metadata, and logs one line per call.
 */
export const implementService = <S>(
  serviceName: string,
  handlers: AsyncService<S>,
  logger: Logger,
  tracker: InFlightTracker,
  verification: CallVerification = {},
  metrics?: RpcMetrics,
): UntypedServiceImplementation => {
  const impl: UntypedServiceImplementation = {};
  const debug = logger.isLevelEnabled("debug");
  for (const [method, handler] of Object.entries(handlers as Record<string, (req: unknown, ctx: RpcContext) => Promise<unknown>>)) {
    impl[method] = (call: UnaryCall, callback: sendUnaryData<unknown>) => {
      const requestId = readRequestId(call.metadata);
      const controller = new AbortController();
      let finished = false;
      // grpc-js may report "cancelled" for a stream that closes after its answer; only a live call aborts.
      call.on("cancelled", () => {
        if (!finished) controller.abort(CANCELLED);
      });
      const started = process.hrtime.bigint();
      const end = tracker.begin();
      const done = () => {
        finished = true;
        end();
      };
      runWithRequestId(requestId, () => {
        // An unsigned call, or a malformed caller, is refused before the handler runs, like any other invalid input.
        const run = async () => {
          const path = call.getPath();
          const operatorSignature = call.metadata.get(OPERATOR_SIGNATURE_METADATA_KEY);
          verifyCallerSignature(verification, path, call.metadata.get(CALLER_METADATA_KEY), call.metadata.get(CALLER_SIGNATURE_METADATA_KEY), operatorSignature);
          const ctx: RpcContext = {
            operator: isOperatorCall(verification, path, operatorSignature),
            requestId,
            idempotencyKey: readIdempotencyKey(call.metadata),
            caller: readCaller(call.metadata.get(CALLER_METADATA_KEY)),
            metadata: call.metadata,
            signal: controller.signal,
            deadline: deadlineOf(call),
          };
          return handler(call.request, ctx);
        };
        run().then(
          (response) => {
            if (debug) logger.debug({ rpc: `${serviceName}/${method}`, ms: elapsedMs(started) }, "rpc ok");
            metrics?.observe(call.getPath(), status.OK, elapsedMs(started) / 1000);
            callback(null, response);
          },
          (err: unknown) => {
            const mapped = toDomainError(err);
            if (mapped.code !== "internal") {
              logger.info({ rpc: `${serviceName}/${method}`, code: mapped.code, ms: elapsedMs(started) }, "rpc refused");
            } else {
              logger.error({ rpc: `${serviceName}/${method}`, err, ms: elapsedMs(started) }, "rpc failed");
            }
            const answer = toStatusObject(mapped);
            metrics?.observe(call.getPath(), answer.code ?? status.UNKNOWN, elapsedMs(started) / 1000);
            callback(answer as Parameters<sendUnaryData<unknown>>[0]);
          },
        ).finally(done);
      });
    };
  }
  return impl;
};

const elapsedMs = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** Counts calls in progress so a drain can wait for them. */
export class InFlightTracker {
  private count = 0;
  private waiters: Array<() => void> = [];

  begin(): () => void {
    this.count += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.count -= 1;
      if (this.count === 0) this.waiters.splice(0).forEach((w) => w());
    };
  }

  get inFlight(): number {
    return this.count;
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

export interface GrpcServiceRegistration<S> {
  /** Fully qualified service name, used in logs and as the health-check service name. */
  name: string;
  definition: ServiceDefinition;
  handlers: AsyncService<S>;
}

export interface StartedGrpcServer {
  /** `host:port` actually bound (useful with port 0). */
  address: string;
  port: number;
  health: HealthImplementation;
  /** Stop accepting calls, report NOT_SERVING, wait for in-flight calls (up to `timeoutMs`), then close. */
  drain(timeoutMs: number): Promise<void>;
  /** True while it reports SERVING: from the bind until a drain starts (what an HTTP readiness probe asks). */
  serving(): boolean;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  logger: Logger;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  services: Array<GrpcServiceRegistration<any>>;
  /** The keys calls and operator calls are checked with; none (a service run without keys, as tests host one) checks nothing. */
  verification?: CallVerification;
  /** Where each answered call is counted and timed (by method and status code); none: not measured. */
  metrics?: RpcMetrics;
  /** Mutual TLS: callers must present a certificate the CA signed. None: plaintext (the default). */
  tls?: GrpcTls;
  /** Also serves its services to callers in this process (the all-in-one), with the same handlers. */
  inProcess?: InProcessChannel;
}

/** Starts a gRPC server with the standard health service and the given services. */
export const startGrpcServer = async (options: GrpcServerOptions): Promise<StartedGrpcServer> => {
  const server = new Server({
    "grpc.keepalive_permit_without_calls": 1,
    "grpc.max_receive_message_length": MAX_REQUEST_BYTES,
  });
  const tracker = new InFlightTracker();
  const healthStatus: Record<string, "SERVING" | "NOT_SERVING"> = { "": "SERVING" };
  for (const s of options.services) healthStatus[s.name] = "SERVING";
  const health = new HealthImplementation(healthStatus);
  health.addToServer(server);
  const impls = options.services.map((s) => ({
    definition: s.definition,
    impl: implementService(s.name, s.handlers, options.logger, tracker, options.verification, options.metrics),
  }));
  for (const { definition, impl } of impls) server.addService(definition, impl);
  const stopLocal = options.inProcess?.register(impls);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, grpcServerCredentials(options.tls), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  const address = `${host}:${port}`;
  options.logger.info({ address, services: options.services.map((s) => s.name) }, "gRPC server listening");

  let drained: Promise<void> | undefined;
  const drain = (timeoutMs: number) => {
    drained ??= (async () => {
      for (const name of Object.keys(healthStatus)) health.setStatus(name, "NOT_SERVING");
      stopLocal?.();
      const shutdown = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutMs).unref());
      const outcome = await Promise.race([Promise.all([shutdown, tracker.idle()]).then(() => "done" as const), timer]);
      if (outcome === "timeout") {
        options.logger.warn({ inFlight: tracker.inFlight }, "drain timed out; cutting remaining calls");
        server.forceShutdown();
      }
    })();
    return drained;
  };
  return { address, port, health, drain, serving: () => drained === undefined };
};

export { status as grpcStatus };
