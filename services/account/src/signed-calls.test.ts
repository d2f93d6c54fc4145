import { CALLER_METADATA_KEY, CALLER_SIGNATURE_METADATA_KEY, createGrpcClient, encodeCaller, InProcessChannel, runWithCaller, signCaller } from "@earshot/platform";
import { hostServiceForTest, refusalOf, type ServiceUnderTest } from "@earshot/platform/testing";
import { accountV1, type commonV1 } from "@earshot/proto";
import { Metadata, credentials } from "@grpc/grpc-js";
import { accountService } from "./service";

// The account service as a cluster and the all-in-one run it (a caller signing key and an operator key
// configured), over a real gRPC hop: a process that reaches its port cannot call it at all unsigned, act
// as anyone, nor mint keys for others. The same
// checks hold through the in-process channel (the all-in-one's gateway calling the services beside it).

const CALLER_KEY = "c".repeat(64);
const OPERATOR_KEY = "o".repeat(64);

describe.each([
  { transport: "loopback gRPC", inProcess: undefined },
  { transport: "the in-process channel", inProcess: new InProcessChannel() },
])("account service with signed calls over $transport", ({ inProcess }) => {
  let hosted: ServiceUnderTest;
  let user: accountV1.User;
  const allowances = { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 };
  const callerOf = (u: accountV1.User): commonV1.Caller => ({ userId: u.id, workspaceId: u.workspaceId, email: u.email, memberships: [], allowances });
  const client = (options: { callerSigningKey?: string; operatorKey?: string } = {}) => createGrpcClient(accountV1.AccountServiceClient, hosted.address, { ...options, ...(inProcess ? { inProcess } : {}) });

  beforeAll(async () => {
    hosted = await hostServiceForTest(accountService, { settings: { EARSHOT_CALLER_SIGNING_KEY: CALLER_KEY, EARSHOT_OPERATOR_KEY: OPERATOR_KEY }, ...(inProcess ? { inProcess } : {}) });
    const operator = client({ operatorKey: OPERATOR_KEY });
    user = (await operator.client.createUser({ email: "ana@example.com", name: "Ana", password: "correct horse" })).user!;
    operator.close();
  });

  afterAll(async () => {
    await hosted.stop();
  });

  it("answers a caller the edge signed with the key", async () => {
    const edge = client({ callerSigningKey: CALLER_KEY });
    const listed = await runWithCaller(callerOf(user), () => edge.client.listApiKeys({ limit: 0, cursor: "" }));
    expect(listed.apiKeys).toEqual([]);
    edge.close();
  });

  it("refuses an unsigned caller, and one signed with another key, as unauthorized", async () => {
    for (const options of [{}, { callerSigningKey: "x".repeat(64) }]) {
      const forger = client(options);
      const err = await refusalOf(runWithCaller(callerOf(user), () => forger.client.listApiKeys({ limit: 0, cursor: "" })));
      expect(err.code).toBe("unauthorized");
      forger.close();
    }
  });

  it("refuses a call that acts for nobody unless it is signed, with the caller key or as the operator", async () => {
    // Sign-up and a read by email carry no caller: a process that merely reaches the port gets neither.
    for (const options of [{}, { callerSigningKey: "x".repeat(64) }, { operatorKey: "x".repeat(64) }]) {
      const stranger = client(options);
      expect(await refusalOf(stranger.client.getUser({ id: "", email: "ana@example.com" }))).toMatchObject({ code: "unauthorized", message: expect.stringMatching(/^The (call's|operator's) signature (is missing|does not match)\.$/) });
      expect((await refusalOf(stranger.client.createUser({ email: "eve@example.com", name: "Eve", password: "correct horse" }))).code).toBe("unauthorized");
      stranger.close();
    }
    for (const options of [{ callerSigningKey: CALLER_KEY }, { operatorKey: OPERATOR_KEY }]) {
      const signed = client(options);
      expect((await signed.client.getUser({ id: "", email: "ana@example.com" })).user?.id).toBe(user.id);
      signed.close();
    }
  });

  it("refuses a caller whose signature has expired or was made for another method", async () => {
    const raw = new accountV1.AccountServiceClient(hosted.address, credentials.createInsecure());
    const caller = encodeCaller(callerOf(user));
    const call = (signature: string) =>
      new Promise<{ code?: number; details?: string }>((resolve) => {
        const md = new Metadata();
        md.set(CALLER_METADATA_KEY, caller);
        md.set(CALLER_SIGNATURE_METADATA_KEY, signature);
        if (inProcess) inProcess.unary("/earshot.account.v1.AccountService/ListApiKeys", { limit: 0, cursor: "" }, md, Date.now() + 5000, (err) => resolve(err ?? {}));
        else raw.listApiKeys({ limit: 0, cursor: "" }, md, (err) => resolve(err ?? {}));
      });
    const expired = await call(signCaller(CALLER_KEY, "/earshot.account.v1.AccountService/ListApiKeys", caller, Date.now() - 120_000));
    expect(expired.details).toBe("The caller's signature has expired.");
    const elsewhere = await call(signCaller(CALLER_KEY, "/earshot.account.v1.AccountService/RevokeApiKey", caller));
    expect(elsewhere.details).toBe("The caller's signature does not match.");
    raw.close();
  });

  it("mints a key for another user only with the operator credential", async () => {
    const request = { userId: user.id, name: "", scopes: ["projects:read"], granterScopes: [], operator: true };
    // The edge's signed caller is not the operator.
    const edge = client({ callerSigningKey: CALLER_KEY });
    const asEdge = await refusalOf(runWithCaller(callerOf(user), () => edge.client.createApiKey(request)));
    expect(asEdge.code).toBe("forbidden");
    edge.close();
    // A wrong operator key signs nothing the service takes: the call is refused before it is looked at.
    const forger = client({ operatorKey: "x".repeat(64) });
    expect((await refusalOf(forger.client.createApiKey(request))).code).toBe("unauthorized");
    expect((await refusalOf(forger.client.reactivateUser({ email: "ana@example.com" }))).code).toBe("unauthorized");
    forger.close();

    const operator = client({ operatorKey: OPERATOR_KEY });
    const { plaintext } = await operator.client.createApiKey(request);
    expect(plaintext).toMatch(/^svc_sk_/);
    operator.close();
  });
});
