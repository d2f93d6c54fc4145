import { Metadata, type MethodDefinition, type ServiceDefinition, type ServiceError, status, type UntypedServiceImplementation } from "@grpc/grpc-js";

// Services hosted in the same process as their caller (the all-in-one) may be called without a socket:
// the request and the answer still go through the generated codec (bytes, as on the wire), the metadata
// the client builds reaches the same server handler (request id, caller and its signature, idempotency
// key, checked by the same code), errors come back as the same status + metadata and are mapped by the
// same client code, and the deadline still cancels the handler. Only HTTP/2 and the loopback socket are
// skipped. What a client calls this way is exactly what it would call over the network.

/** grpc-js' default receive limit, which every client here keeps: a larger answer fails over the network. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** The receive limit every server here sets (`grpc.max_receive_message_length` in server.ts). */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

const tooLarge = (bytes: number, max: number) => serviceError(status.RESOURCE_EXHAUSTED, `Received message larger than max (${bytes} vs ${max})`);

/** The handler a server registers for one method: grpc-js's unary form, `(call, callback)`. */
type UnaryImpl = (call: InProcessCall, callback: (error: Partial<ServiceError> | null, response?: unknown) => void) => void;

interface LocalMethod {
  definition: MethodDefinition<unknown, unknown>;
  impl: UnaryImpl;
  server: LocalServer;
}

interface LocalServer {
  serving: boolean;
}

/** A ServiceError as grpc-js builds one from a status: an Error with the code, details and trailing metadata. */
export const serviceError = (code: status, details: string, metadata: Metadata = new Metadata()): ServiceError =>
  Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata });

/**
 * The server side of one in-process call, shaped like the part of grpc-js's ServerUnaryCall that
 * `implementService` reads: the request, its metadata, path and deadline, and the `cancelled` event.
 */
export class InProcessCall {
  private onCancelled: (() => void) | undefined;
  cancelled = false;

  constructor(
    readonly request: unknown,
    readonly metadata: Metadata,
    private readonly path: string,
    private readonly deadline: number,
  ) {}

  getPath(): string {
    return this.path;
  }

  getDeadline(): number {
    return this.deadline;
  }

  on(event: string, listener: () => void): this {
    if (event === "cancelled") this.onCancelled = listener;
    return this;
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.onCancelled?.();
  }
}

/** One unary call from the client's side: settles once, by the answer, the handler's error or the deadline. */
class PendingCall {
  private settled = false;
  private timer: NodeJS.Timeout | undefined;
  readonly call: InProcessCall;

  constructor(
    private readonly method: LocalMethod,
    request: unknown,
    metadata: Metadata,
    path: string,
    deadline: number,
    private readonly callback: (error: ServiceError | null, response: unknown) => void,
  ) {
    // Encoded and decoded as over the network: the handler sees exactly what the codec carries, and a
    // message over the receiving side's limit fails as it would there.
    const bytes = method.definition.requestSerialize(request);
    this.call = new InProcessCall(bytes.length > MAX_REQUEST_BYTES ? undefined : method.definition.requestDeserialize(bytes), metadata, path, deadline);
    if (bytes.length > MAX_REQUEST_BYTES) {
      this.finish(tooLarge(bytes.length, MAX_REQUEST_BYTES), undefined);
      return;
    }
    const wait = deadline - Date.now();
    if (wait <= 0) {
      this.expire();
      return;
    }
    this.timer = setTimeout(this.expire, wait);
    method.impl(this.call, this.answer);
  }

  private readonly expire = () => {
    this.finish(serviceError(status.DEADLINE_EXCEEDED, "Deadline exceeded"), undefined);
    this.call.cancel();
  };

  /** The client cancels: answered CANCELLED at once, and the handler's signal aborts, as over grpc-js. */
  readonly cancel = () => {
    this.finish(serviceError(status.CANCELLED, "Cancelled on client"), undefined);
    this.call.cancel();
  };

  private readonly answer = (error: Partial<ServiceError> | null, response?: unknown) => {
    if (error) {
      const code = error.code ?? status.UNKNOWN;
      this.finish(serviceError(code, error.details ?? "", error.metadata ?? new Metadata()), undefined);
      return;
    }
    const { definition } = this.method;
    let decoded: unknown;
    try {
      const bytes = definition.responseSerialize(response);
      if (bytes.length > MAX_ANSWER_BYTES) {
        this.finish(tooLarge(bytes.length, MAX_ANSWER_BYTES), undefined);
        return;
      }
      decoded = definition.responseDeserialize(bytes);
    } catch {
      this.finish(serviceError(status.INTERNAL, "The answer could not be encoded."), undefined);
      return;
    }
    this.finish(null, decoded);
  };

  private finish(error: ServiceError | null, response: unknown) {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    this.callback(error, response);
  }
}

/**
 * The services a process hosts, by method path, for callers in the same process. A server registers its
 * services when it starts and stops taking calls when it drains (callers then get UNAVAILABLE, as from a
 * server that is going away).
 */
export class InProcessChannel {
  private readonly methods = new Map<string, LocalMethod>();

  /** Registers a started server's services; the returned function marks it as draining. */
  register(services: Array<{ definition: ServiceDefinition; impl: UntypedServiceImplementation }>): () => void {
    const server: LocalServer = { serving: true };
    for (const { definition, impl } of services) {
      for (const [name, method] of Object.entries(definition)) {
        const handler = impl[name];
        if (method.requestStream || method.responseStream || typeof handler !== "function") continue;
        this.methods.set(method.path, { definition: method as MethodDefinition<unknown, unknown>, impl: handler as unknown as UnaryImpl, server });
      }
    }
    return () => {
      server.serving = false;
    };
  }

  /** Whether calls to `path` are served in this process. */
  has(path: string): boolean {
    return this.methods.has(path);
  }

  /** A unary call to `path`, answered through `callback` as grpc-js answers one; `cancel` ends it as a client cancelling does. */
  unary(path: string, request: unknown, metadata: Metadata, deadline: number, callback: (error: ServiceError | null, response: unknown) => void): { cancel(): void } {
    const none = { cancel: () => undefined };
    const method = this.methods.get(path);
    if (!method) {
      callback(serviceError(status.UNIMPLEMENTED, `${path} is not served in this process`), undefined);
      return none;
    }
    if (!method.server.serving) {
      callback(serviceError(status.UNAVAILABLE, "The service is shutting down."), undefined);
      return none;
    }
    try {
      return new PendingCall(method, request, metadata, path, deadline, callback);
    } catch {
      // The request did not encode: grpc-js reports this as INTERNAL before sending anything.
      callback(serviceError(status.INTERNAL, "The request could not be encoded."), undefined);
      return none;
    }
  }
}
