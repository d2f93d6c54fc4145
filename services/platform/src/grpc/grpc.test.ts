import {
  type CallOptions,
  type ChannelCredentials,
  type ClientOptions,
  type ClientUnaryCall,
  type handleUnaryCall,
  InterceptingCall,
  type Interceptor,
  ListenerBuilder,
  makeGenericClientConstructor,
  type Metadata,
  type ServiceDefinition,
  type ServiceError,
} from "@grpc/grpc-js";
import { DomainError, validationFailed } from "../errors";
import { UniqueViolationError, VersionConflictError } from "../store/port";
import { currentRequestId, runWithRequestId, silentLogger } from "../logger";
import { commonV1 } from "@earshot/proto";
import { Metadata as GrpcMetadata, status as grpcStatus } from "@grpc/grpc-js";
import { runWithIdempotencyKey } from "./call-context";
import { CALLER_METADATA_KEY, type CallerContext, encodeCaller, requireCaller, runWithCaller } from "./caller-context";
import { createGrpcClient, type GrpcClientOptions } from "./client";
import { InProcessChannel } from "./in-process";
import { fromServiceError } from "./error-mapping";
import { createHealthChecker } from "./health";
import { waitFor } from "../testing/tmp";
import { type AsyncService, type RpcContext, startGrpcServer, type StartedGrpcServer } from "./server";

// A hand-written service with JSON messages keeps these tests free of any domain proto; the hop is real gRPC.
interface Msg {
  value: string;
  delayMs?: number;
}
const json = {
  requestSerialize: (v: Msg) => Buffer.from(JSON.stringify(v)),
  requestDeserialize: (b: Buffer) => JSON.parse(b.toString()) as Msg,
  responseSerialize: (v: Msg) => Buffer.from(JSON.stringify(v)),
  responseDeserialize: (b: Buffer) => JSON.parse(b.toString()) as Msg,
};
const definition = {
  getThing: { path: "/test.v1.ThingService/GetThing", requestStream: false, responseStream: false, ...json },
  createThing: { path: "/test.v1.ThingService/CreateThing", requestStream: false, responseStream: false, ...json },
} as unknown as ServiceDefinition;

interface ThingServer {
  getThing: handleUnaryCall<Msg, Msg>;
  createThing: handleUnaryCall<Msg, Msg>;
}
type Cb = (error: ServiceError | null, response: Msg) => void;
interface ThingClient {
  getThing(request: Msg, metadata: Metadata, options: Partial<CallOptions>, callback: Cb): ClientUnaryCall;
  createThing(request: Msg, metadata: Metadata, options: Partial<CallOptions>, callback: Cb): ClientUnaryCall;
}
const ThingClientCtor = makeGenericClientConstructor(definition, "ThingService") as unknown as {
  new (...args: ConstructorParameters<ReturnType<typeof makeGenericClientConstructor>>): ThingClient;
  service: Record<string, unknown>;
};

/** ThingService's client telling `onStatus` how each attempt of each call ended, as the network saw it. */
const observedThingClient = (onStatus: (code: grpcStatus) => void) => {
  const observe: Interceptor = (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start: (metadata, _listener, next) =>
        next(
          metadata,
          new ListenerBuilder()
            .withOnReceiveStatus((status, done) => {
              onStatus(status.code);
              done(status);
            })
            .build(),
        ),
    });
  return class extends ThingClientCtor {
    constructor(address: string, credentials: ChannelCredentials, options: Partial<ClientOptions> = {}) {
      super(address, credentials, { ...options, interceptors: [observe] });
    }
  };
};

const calls: {
  get: number;
  create: number;
  aborted: number;
  lastRequestId?: string;
  lastIdempotencyKey?: string;
  lastCaller?: CallerContext | undefined;
} = { get: 0, create: 0, aborted: 0 };

const handlers = {
  getThing: async (req: Msg, ctx: RpcContext): Promise<Msg> => {
    calls.get += 1;
    calls.lastRequestId = currentRequestId();
    calls.lastCaller = ctx.caller;
    if (req.value === "for-a-person") return { value: requireCaller(ctx).userId };
    if (req.value === "missing") throw new DomainError("not_found", "Thing was not found.");
    if (req.value === "bad") throw validationFailed([{ path: "value", message: "must not be bad" }]);
    if (req.value === "boom") throw new Error("database password is hunter2");
    if (req.value === "raced") throw new VersionConflictError("things", "thg_1");
    if (req.value === "duplicate") throw new UniqueViolationError("things", "duplicate key \"thg_1\"");
    if (req.delayMs) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, req.delayMs);
        const onAbort = () => {
          calls.aborted += 1;
          clearTimeout(t);
          resolve();
        };
        // The call may have ended before the handler ran (its deadline passed on the way).
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener("abort", onAbort);
      });
    }
    return { value: `got ${req.value} as ${ctx.requestId}` };
  },
  createThing: async (req: Msg, ctx: RpcContext): Promise<Msg> => {
    calls.create += 1;
    calls.lastIdempotencyKey = ctx.idempotencyKey;
    if (req.delayMs) await new Promise((r) => setTimeout(r, req.delayMs));
    return { value: `made ${req.value}` };
  },
};

// Every test runs over both transports a client may use: a real loopback gRPC hop, and the in-process
// channel the all-in-one's gateway uses for the services beside it. Both must give the same answers,
// errors, metadata checks and deadlines.
describe.each([
  { transport: "loopback gRPC", inProcess: false },
  { transport: "the in-process channel", inProcess: true },
])("gRPC server and client helpers over $transport", ({ inProcess }) => {
  let server: StartedGrpcServer;
  let channel: InProcessChannel;
  const start = (port = 0) =>
    startGrpcServer({
      host: "127.0.0.1",
      port,
      logger: silentLogger(),
      services: [{ name: "test.v1.ThingService", definition, handlers: handlers as AsyncService<ThingServer> }],
      ...(inProcess ? { inProcess: channel } : {}),
    });
  const connect = (options: GrpcClientOptions = {}, Ctor: typeof ThingClientCtor = ThingClientCtor, address = server.address) =>
    createGrpcClient(Ctor, address, { ...options, ...(inProcess ? { inProcess: channel } : {}) });
  beforeEach(async () => {
    Object.assign(calls, { get: 0, create: 0, aborted: 0, lastRequestId: undefined, lastIdempotencyKey: undefined, lastCaller: undefined });
    channel = new InProcessChannel();
    server = await start();
  });
  afterEach(async () => {
    await server.drain(1000);
  });

  it("answers a call", async () => {
    const { client, close } = connect();
    await expect(client.getThing({ value: "a" })).resolves.toMatchObject({ value: expect.stringMatching(/^got a as req_/) });
    close();
  });

  it("carries the caller's request id in metadata to the handler's context", async () => {
    const { client, close } = connect();
    const res = await runWithRequestId("req_abc123", () => client.getThing({ value: "a" }));
    expect(res.value).toBe("got a as req_abc123");
    expect(calls.lastRequestId).toBe("req_abc123");
    close();
  });

  it("carries the idempotency key set around a call to the handler's context, and none without one", async () => {
    const { client, close } = connect();
    await runWithIdempotencyKey("Zm9vYmFyYmF6cXV4cXV1eA", () => client.createThing({ value: "a" }));
    expect(calls.lastIdempotencyKey).toBe("Zm9vYmFyYmF6cXV4cXV1eA");
    await client.createThing({ value: "b" });
    expect(calls.lastIdempotencyKey).toBeUndefined();
    close();
  });

  const ana: commonV1.Caller = {
    userId: "usr_ana",
    workspaceId: "wsp_ana",
    email: "ana@example.com",
    memberships: [
      { projectId: "prj_1", role: commonV1.Role.ROLE_OWNER, workspaceId: "wsp_1" },
      { projectId: "prj_2", role: commonV1.Role.ROLE_VIEWER, workspaceId: "wsp_2" },
    ],
    allowances: { projects: 3, keywords: 50, seats: 2, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 4 },
  };

  /** Calls GetThing with hand-made metadata, as a client that does not use createGrpcClient would. */
  const rawCall = (metadata: GrpcMetadata, value = "a") => {
    if (inProcess) {
      return new Promise<{ err: ServiceError | null; res: Msg }>((resolve) =>
        channel.unary("/test.v1.ThingService/GetThing", { value }, metadata, Date.now() + 5000, (err, res) => resolve({ err, res: res as Msg })),
      );
    }
    const { raw, close } = createGrpcClient(ThingClientCtor, server.address);
    return new Promise<{ err: ServiceError | null; res: Msg }>((resolve) =>
      raw.getThing({ value }, metadata, {}, (err, res) => resolve({ err, res })),
    ).finally(close);
  };

  it("carries the caller set around a call, protobuf-encoded in metadata, into the handler's ctx.caller", async () => {
    const { client, close } = connect();
    await expect(runWithCaller(ana, () => client.getThing({ value: "for-a-person" }))).resolves.toEqual({ value: "usr_ana" });
    expect(calls.lastCaller).toEqual(ana);
    close();
  });

  it("leaves ctx.caller undefined for a call without a caller, and requireCaller answers unauthorized", async () => {
    const { client, close } = connect();
    await client.getThing({ value: "a" });
    expect(calls.lastCaller).toBeUndefined();
    await expect(client.getThing({ value: "for-a-person" })).rejects.toMatchObject({ code: "unauthorized" });
    close();
  });

  it("refuses a caller that does not decode, before the handler runs, naming caller", async () => {
    const metadata = new GrpcMetadata();
    metadata.set(CALLER_METADATA_KEY, Buffer.from([0x0a, 0xff, 0x01]));
    const { err } = await rawCall(metadata);
    expect(err?.code).toBe(3); // INVALID_ARGUMENT
    expect(calls.get).toBe(0);
    expect(fromServiceError(err as ServiceError)).toMatchObject({ code: "validation_failed", errors: [{ path: "caller" }] });
  });

  it("refuses a caller missing its identity or allowances, or with a membership without a role or a workspace", async () => {
    const { client, close } = connect();
    const broken: commonV1.Caller = {
      ...ana,
      workspaceId: "",
      allowances: undefined,
      memberships: [
        { projectId: "prj_1", role: commonV1.Role.ROLE_UNSPECIFIED, workspaceId: "wsp_1" },
        { projectId: "prj_2", role: commonV1.Role.ROLE_OWNER, workspaceId: "" },
      ],
    };
    const err = (await runWithCaller(broken, () => client.getThing({ value: "a" })).catch((e: unknown) => e)) as DomainError;
    expect(err).toMatchObject({ code: "validation_failed", status: 400 });
    expect(err.errors.map((e) => e.path)).toEqual(["caller.workspaceId", "caller.allowances", "caller.memberships.0.role", "caller.memberships.1.workspaceId"]);
    expect(calls.get).toBe(0);
    const metadata = new GrpcMetadata();
    metadata.set(CALLER_METADATA_KEY, encodeCaller({ ...ana, userId: "" }));
    expect((await rawCall(metadata)).err?.code).toBe(3);
    close();
  });

  it("refuses a caller with more than 2,000 memberships or an email that is not an address, naming the field", async () => {
    const { client, close } = connect();
    const memberships = Array.from({ length: 2_001 }, (_, i) => ({ projectId: `prj_${i}`, role: commonV1.Role.ROLE_VIEWER, workspaceId: "wsp_1" }));
    const many = (await runWithCaller({ ...ana, memberships }, () => client.getThing({ value: "a" })).catch((e: unknown) => e)) as DomainError;
    expect(many).toMatchObject({ code: "validation_failed", errors: [{ path: "caller.memberships", message: "must list at most 2000 projects" }] });
    for (const email of ["not an address", `${"a".repeat(300)}@example.com`]) {
      const bad = (await runWithCaller({ ...ana, email }, () => client.getThing({ value: "a" })).catch((e: unknown) => e)) as DomainError;
      expect(bad).toMatchObject({ code: "validation_failed", errors: [{ path: "caller.email" }] });
    }
    expect(calls.get).toBe(0);
    await expect(runWithCaller({ ...ana, memberships: memberships.slice(0, 2_000) }, () => client.getThing({ value: "for-a-person" }))).resolves.toEqual({ value: "usr_ana" });
    close();
  });

  it("gives the client the same domain error the handler threw, with its field errors", async () => {
    const { client, close } = connect();
    await expect(client.getThing({ value: "missing" })).rejects.toMatchObject({ code: "not_found", message: "Thing was not found." });
    await expect(client.getThing({ value: "bad" })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [{ path: "value", message: "must not be bad" }],
    });
    close();
  });

  it("keeps the internals of unexpected errors out of the answer", async () => {
    const { client, close } = connect();
    const err = (await client.getThing({ value: "boom" }).catch((e: unknown) => e)) as DomainError;
    expect(err.code).toBe("internal");
    expect(err.message).not.toContain("hunter2");
    close();
  });

  it("answers conflict, not internal, when a store version conflict or unique violation escapes a handler", async () => {
    const { client, close } = connect();
    for (const value of ["raced", "duplicate"]) {
      const err = (await client.getThing({ value }).catch((e: unknown) => e)) as DomainError;
      expect(err).toMatchObject({ code: "conflict", status: 409 });
      expect(err.message).not.toContain("thg_1");
    }
    close();
  });

  it("fails an answer over 4 MB, and a request over 8 MB before the handler runs, as internal", async () => {
    const { client, close } = connect();
    const big = "x".repeat(4 * 1024 * 1024);
    await expect(client.createThing({ value: big })).rejects.toMatchObject({ code: "internal" });
    expect(calls.create).toBe(1);
    await expect(client.createThing({ value: big + big + "x" })).rejects.toMatchObject({ code: "internal" });
    expect(calls.create).toBe(1);
    close();
  });

  it("ends a call at its deadline as unavailable and aborts the handler's signal", async () => {
    const { client, close } = connect();
    // A deadline long enough for the call to reach its handler on a loaded machine, far shorter than the handler's wait.
    await expect(client.getThing({ value: "slow", delayMs: 30_000 }, { deadlineMs: 1000 })).rejects.toMatchObject({ code: "unavailable" });
    await waitFor(() => calls.aborted === 1);
    close();
  });

  it("cancels a call when the caller's signal aborts, aborting the handler's signal", async () => {
    const { client, close } = connect();
    const gone = new AbortController();
    const call = client.getThing({ value: "waiting", delayMs: 30_000 }, { deadlineMs: 60_000, signal: gone.signal });
    // Until the handler runs (it counts the call), then the caller goes away.
    await waitFor(() => calls.get === 1);
    gone.abort();
    await expect(call).rejects.toMatchObject({ code: "unavailable" });
    await waitFor(() => calls.aborted === 1);
    // An already aborted signal cancels at once.
    await expect(client.getThing({ value: "never", delayMs: 30_000 }, { signal: gone.signal })).rejects.toMatchObject({ code: "unavailable" });
    close();
  });

  (inProcess ? it.skip : it)("retries a read while the server is unavailable, and never a write", async () => {
    const port = server.port;
    await server.drain(1000);
    const attempts: grpcStatus[] = [];
    const { client, close } = connect({ retryBackoffMs: 100, readAttempts: 4 }, observedThingClient((code) => attempts.push(code)), `127.0.0.1:${port}`);
    await expect(client.createThing({ value: "x" })).rejects.toMatchObject({ code: "unavailable" });
    expect(attempts).toEqual([grpcStatus.UNAVAILABLE]);
    const read = client.getThing({ value: "later" }, { deadlineMs: 3000 });
    // The server comes back once the read's first attempt has found it down: the read can succeed by a retry alone.
    await waitFor(() => attempts.length >= 2);
    expect(attempts[1]).toBe(grpcStatus.UNAVAILABLE);
    server = await start(port);
    await expect(read).resolves.toMatchObject({ value: expect.stringContaining("got later") });
    expect(calls.create).toBe(0);
    close();
  });

  (inProcess ? it : it.skip)("refuses calls as unavailable once its server drains, never retries a write, and a read retried after a restart succeeds", async () => {
    const port = server.port;
    const { client, close } = connect({ retryBackoffMs: 100, readAttempts: 4 });
    await server.drain(1000);
    await expect(client.createThing({ value: "x" })).rejects.toMatchObject({ code: "unavailable" });
    const read = client.getThing({ value: "later" }, { deadlineMs: 3000 });
    server = await start(port);
    await expect(read).resolves.toMatchObject({ value: expect.stringContaining("got later") });
    expect(calls.create).toBe(0);
    close();
  });

  it("lets in-flight calls finish when draining", async () => {
    const { client, close } = connect();
    const inFlight = client.createThing({ value: "slow", delayMs: 300 });
    await waitFor(() => calls.create === 1);
    const drained = server.drain(2000);
    await expect(inFlight).resolves.toEqual({ value: "made slow" });
    await drained;
    close();
  });

  (inProcess ? it.skip : it)("reports SERVING through the standard health service, and lets in-flight calls finish when draining", async () => {
    const health = createHealthChecker(server.address);
    expect(await health.check()).toBe("SERVING");
    expect(await health.check("test.v1.ThingService")).toBe("SERVING");
    expect(await health.check("no.such.Service")).toBe("SERVICE_UNKNOWN");
    const { client, close } = connect();
    const inFlight = client.createThing({ value: "slow", delayMs: 300 });
    await waitFor(() => calls.create === 1);
    const drained = server.drain(2000);
    // The call that was running when the drain began still completes.
    await expect(inFlight).resolves.toEqual({ value: "made slow" });
    await drained;
    expect(await health.check("", 300)).toBe("UNREACHABLE");
    health.close();
    close();
  });
});
