import { ACCOUNT_TOPIC } from "./events";
import { createGrpcClient, createInProcessBus, type GrpcClientHandle, runWithCaller } from "@earshot/platform";
import { hostServiceForTest, refusalOf, type ServiceUnderTest } from "@earshot/platform/testing";
import { accountV1, type commonV1 } from "@earshot/proto";
import { accountService } from "./service";

// The account service through a real gRPC hop: hosted as the all-in-one hosts it (embedded store in a
// temp data dir, in-process bus), called with the generated client.

describe("account service over gRPC", () => {
  let hosted: ServiceUnderTest;
  let account: GrpcClientHandle<accountV1.AccountServiceClient>;
  const bus = createInProcessBus();
  const published: Array<{ topic: string; key: string; type: string }> = [];

  beforeAll(async () => {
    await bus.subscribe({ groupId: "test", topics: [ACCOUNT_TOPIC] }, async (m) => {
      published.push({ topic: m.topic, key: m.key, type: (JSON.parse(m.value) as { type: string }).type });
    });
    hosted = await hostServiceForTest(accountService, { bus });
    account = createGrpcClient(accountV1.AccountServiceClient, hosted.address);
  });

  afterAll(async () => {
    account.close();
    await hosted.stop();
    await bus.close();
  });

  /** The caller the edge would send for this user (calls acting for a person take the user from it). */
  const as = <T>(user: accountV1.User | undefined, fn: () => Promise<T>): Promise<T> => {
    const caller: commonV1.Caller = {
      userId: user!.id,
      workspaceId: user!.workspaceId,
      email: user!.email,
      memberships: [],
      allowances: { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 },
    };
    return runWithCaller(caller, fn);
  };


  it("delivers a domain error with its code, message and field errors", async () => {
    const err = await refusalOf(account.client.createUser({ email: "nope", name: "", password: "short" }));
    expect(err.code).toBe("validation_failed");
    expect(err.message).toBe("The request has invalid fields.");
    expect(err.errors).toEqual([
      { path: "email", message: "must be an email address" },
      { path: "name", message: "must be 1 to 100 characters" },
      { path: "password", message: "must be 8 to 200 characters" },
    ]);
  });

  it("creates a user, mints a key and verifies it, with times as Dates and the workspace's allowances", async () => {
    const { user, workspace } = await account.client.createUser({ email: "Ana@Example.com", name: "Ana", password: "correct horse" });
    expect(user).toMatchObject({ email: "ana@example.com", name: "Ana", status: accountV1.UserStatus.USER_STATUS_ACTIVE, workspaceId: workspace?.id });
    expect(user?.createdAt).toBeInstanceOf(Date);
    expect(user?.deactivatedAt).toBeUndefined();
    expect(workspace).toMatchObject({ ownerId: user?.id, plan: "free", allowances: { projects: 10, keywords: 100, seats: 10 } });

    const expiresAt = new Date(Date.now() + 3_600_000);
    const created = await account.client.createApiKey({ userId: user!.id, name: "", scopes: ["projects:read", "mcp"], expiresAt, granterScopes: [], operator: true });
    expect(created.plaintext).toMatch(/^svc_sk_[\w-]{43}$/);
    expect(created.apiKey).toMatchObject({ name: "API key", prefix: created.plaintext.slice(0, 11), scopes: ["projects:read", "mcp"], expiresAt });
    expect(created.apiKey).not.toHaveProperty("hash");

    const { principal } = await account.client.verifyApiKey({ plaintext: created.plaintext });
    expect(principal).toEqual({
      userId: user!.id,
      workspaceId: workspace!.id,
      scopes: ["projects:read", "mcp"],
      credentialId: created.apiKey!.id,
      allowances: { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 },
      email: "ana@example.com",
    });

    const listed = await as(user, () => account.client.listApiKeys({ limit: 0, cursor: "" }));
    expect(listed.apiKeys.map((k) => k.id)).toEqual([created.apiKey!.id]);
    expect(listed.nextCursor).toBe("");
    expect(listed.apiKeys[0]?.lastUsedAt).toBeInstanceOf(Date);
  });

  it("reads a user by email, renames, deactivates and reactivates", async () => {
    await account.client.createUser({ email: "bo@example.com", name: "Bo", password: "correct horse" });
    const { user } = await account.client.getUser({ email: "BO@example.com" });
    expect((await as(user, () => account.client.updateUser({ name: " Bo B. " }))).user?.name).toBe("Bo B.");
    const off = await as(user, () => account.client.deactivateUser({ confirmation: "DELETE" }));
    expect(off.user).toMatchObject({ status: accountV1.UserStatus.USER_STATUS_DEACTIVATED, deactivatedAt: expect.any(Date) });
    expect(await refusalOf(account.client.authenticate({ email: "bo@example.com", password: "correct horse" }))).toMatchObject({
      code: "unauthorized",
      message: "This account is deactivated.",
    });
    expect((await account.client.reactivateUser({ email: "bo@example.com" })).user?.status).toBe(accountV1.UserStatus.USER_STATUS_ACTIVE);
    expect((await account.client.authenticate({ email: "bo@example.com", password: "correct horse" })).user?.id).toBe(user!.id);
  });

  it("maps conflict, not found, forbidden and unauthorized across the hop", async () => {
    await account.client.createUser({ email: "cy@example.com", name: "Cy", password: "correct horse" });
    const { user } = await account.client.getUser({ email: "cy@example.com" });
    expect((await refusalOf(account.client.createUser({ email: "CY@example.com", name: "Cy", password: "correct horse" }))).code).toBe("conflict");
    expect((await refusalOf(account.client.getUser({ id: "usr_01JZZZZZZZZZZZZZZZZZZZZZZZ" }))).code).toBe("not_found");
    expect(
      await refusalOf(as(user, () => account.client.createApiKey({ userId: "", name: "x", scopes: ["projects:write"], granterScopes: ["projects:read"], operator: false }))),
    ).toMatchObject({ code: "forbidden", message: "A key cannot grant the scope projects:write it does not hold." });
    expect(await refusalOf(account.client.verifyApiKey({ plaintext: "svc_sk_nope" }))).toMatchObject({ code: "unauthorized" });
    expect(await refusalOf(as(user, () => account.client.listApiKeys({ limit: 5, cursor: "bogus" })))).toMatchObject({ errors: [{ path: "cursor" }] });
  });

  it("acts for the caller in the call metadata: without one a person's call is unauthorized, and a key is never minted for someone else", async () => {
    const { user: eve } = await account.client.createUser({ email: "eve@example.com", name: "Eve", password: "correct horse" });
    const { user: fay } = await account.client.createUser({ email: "fay@example.com", name: "Fay", password: "correct horse" });
    for (const call of [
      account.client.updateUser({ name: "Nobody" }),
      account.client.deactivateUser({ confirmation: "DELETE" }),
      account.client.listApiKeys({ limit: 5, cursor: "" }),
      account.client.revokeApiKey({ keyId: "key_01JZZZZZZZZZZZZZZZZZZZZZZZ" }),
      account.client.createApiKey({ userId: "", name: "x", scopes: ["projects:read"], granterScopes: ["projects:read"], operator: false }),
    ]) {
      expect(await refusalOf(call)).toMatchObject({ code: "unauthorized" });
    }
    const foreign = as(eve, () =>
      account.client.createApiKey({ userId: fay!.id, name: "x", scopes: ["projects:read"], granterScopes: ["projects:read"], operator: false }),
    );
    expect(await refusalOf(foreign)).toMatchObject({ code: "validation_failed", errors: [{ path: "userId" }] });
    const own = await as(eve, () =>
      account.client.createApiKey({ userId: "", name: "x", scopes: ["projects:read"], granterScopes: ["projects:read"], operator: false }),
    );
    expect(own.apiKey?.userId).toBe(eve!.id);
    expect((await as(fay, () => account.client.listApiKeys({ limit: 5, cursor: "" }))).apiKeys).toEqual([]);
    expect(await refusalOf(as(fay, () => account.client.revokeApiKey({ keyId: own.apiKey!.id })))).toMatchObject({ code: "not_found" });
  });

  it("publishes its events on earshot.account.v1, keyed by workspace id", async () => {
    const { user, workspace } = await account.client.createUser({ email: "dee@example.com", name: "Dee", password: "correct horse" });
    await as(user, () => account.client.deactivateUser({ confirmation: "DELETE" }));
    for (let i = 0; i < 500 && published.filter((p) => p.key === workspace!.id).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(published.filter((p) => p.key === workspace!.id)).toEqual([
      { topic: ACCOUNT_TOPIC, key: workspace!.id, type: "user.created" },
      { topic: ACCOUNT_TOPIC, key: workspace!.id, type: "user.deactivated" },
    ]);
  });
});
