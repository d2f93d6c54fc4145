import type { GrpcServiceRegistration } from "./grpc/server";
import { createGrpcClient } from "./grpc/client";
import { runWithCaller } from "./grpc/caller-context";
import type { ServiceModule } from "./service-host";
import { testCaller } from "./testing/caller";
import { type EchoMessage, EchoClient, echoService } from "./testing/echo-service";
import { makeTestPki, testTls, testTlsSettings } from "./testing/pki";
import { hostServiceForTest, type ServiceUnderTest } from "./testing/service-under-test";
import { makeTempDir } from "./testing/tmp";

// A service calling another, as a registry entry with `calls` does, through the client its host hands it
// (deps.connect): over real loopback gRPC, with mutual TLS and signed callers on, as the chart runs them.

const SIGNING_KEY = "k".repeat(40);

/** The Echo contract, answering who asked: the callee, which requires a certificate and a signed caller. */
const whoAsked: GrpcServiceRegistration<{ echo: unknown }> = {
  ...echoService,
  handlers: { echo: async (request: EchoMessage, ctx: { caller?: { userId: string } }) => ({ value: `${request.value} for ${ctx.caller?.userId ?? "nobody"}` }) } as never,
};

/** The Echo contract again, answered by asking the callee on behalf of the same caller. */
const relayTo = (calleeAddress: string): ServiceModule => ({
  name: "relay",
  open: async (deps) => {
    const callee = deps.connect(EchoClient, calleeAddress, { deadlineMs: 3000, readAttempts: 1 });
    const relay: GrpcServiceRegistration<{ echo: unknown }> = {
      ...echoService,
      handlers: { echo: async (request: EchoMessage, ctx: { caller?: Parameters<typeof runWithCaller>[0] }) => runWithCaller(ctx.caller, () => callee.echo(request)) } as never,
    };
    return { grpc: [relay] };
  },
});

describe("a service calling another under mutual TLS", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let callee: ServiceUnderTest;
  let relay: ServiceUnderTest;
  beforeAll(async () => {
    tmp = await makeTempDir("earshot-service-calls-");
    makeTestPki(tmp.dir, "ca", ["mention", "alert", "gateway"]);
    const settings = (name: string) => ({ ...testTlsSettings(tmp.dir, "ca", name), EARSHOT_CALLER_SIGNING_KEY: SIGNING_KEY });
    callee = await hostServiceForTest({ name: "mention", open: async () => ({ grpc: [whoAsked] }) }, { settings: settings("mention") });
    relay = await hostServiceForTest(relayTo(callee.address), { settings: settings("alert") });
  });
  afterAll(async () => {
    await relay?.stop();
    await callee?.stop();
    await tmp.cleanup();
  });

  const echo = async (address: string, options: Parameters<typeof createGrpcClient>[2]) => {
    const { client, close } = createGrpcClient(EchoClient, address, { deadlineMs: 3000, readAttempts: 1, ...options });
    try {
      return await runWithCaller(testCaller({ id: "usr_1", workspaceId: "wsp_1", email: "ada@example.com" }), () => client.echo({ value: "hello" }));
    } finally {
      close();
    }
  };

  it("reaches the callee presenting the process's certificate and signing the caller it forwards", async () => {
    await expect(echo(relay.address, { tls: testTls(tmp.dir, "ca", "gateway"), callerSigningKey: SIGNING_KEY })).resolves.toEqual({ value: "hello for usr_1" });
  });

  it("while the callee refuses a client without a certificate, and one with a certificate but an unsigned caller", async () => {
    await expect(echo(callee.address, { callerSigningKey: SIGNING_KEY })).rejects.toMatchObject({ code: "unavailable" });
    await expect(echo(callee.address, { tls: testTls(tmp.dir, "ca", "gateway") })).rejects.toMatchObject({ code: "unauthorized" });
  });
});
