import { ManualClock, openEmbeddedStore, Outbox } from "@earshot/platform";
import { openAccountCollections } from "../store";
import { createApiKey, hashKey, listApiKeys, revokeApiKey, verifyApiKey } from "./api-keys";
import type { AccountDeps } from "./deps";
import { createUser, deactivateUser } from "./users";

const setup = async () => {
  const store = await openEmbeddedStore();
  const clock = new ManualClock("2026-11-22T08:00:00Z");
  const deps: AccountDeps = { collections: await openAccountCollections(store), outbox: new Outbox(store, clock, "account"), clock };
  const { user } = await createUser(deps, { email: "Ana@Example.com", name: "Ana", password: "long enough" });
  return { store, clock, deps, user };
};

describe("API keys", () => {
  it("stores only a hash and a display prefix, never the plaintext", async () => {
    const { deps, user, store } = await setup();
    const { key, plaintext } = await createApiKey(deps, { userId: user._id, name: "CI", scopes: ["projects:read"], granterScopes: [], operator: true });
    expect(plaintext).toMatch(/^svc_sk_[\w-]{43}$/);
    expect(key.hash).toBe(hashKey(plaintext));
    expect(key.prefix).toBe(plaintext.slice(0, 11));
    const raw = JSON.stringify(await store.collection("api_keys").find({}));
    expect(raw).not.toContain(plaintext);
    const events = await store.collection<{ _id: string; event: { type: string } }>("outbox").find({});
    expect(events.map((e) => e.event.type)).toEqual(["user.created", "api_key.created"]);
  });

  it("refuses a key with a scope its granter lacks, an unknown scope and a past expiry", async () => {
    const { deps, user, clock } = await setup();
    await expect(createApiKey(deps, { userId: user._id, name: "x", scopes: ["projects:write"], granterScopes: ["projects:read"], operator: false })).rejects.toMatchObject({ code: "forbidden" });
    await expect(createApiKey(deps, { userId: user._id, name: "x", scopes: ["projects:admin"], granterScopes: [], operator: true })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [{ path: "scopes.0" }],
    });
    await expect(
      createApiKey(deps, { userId: user._id, name: "x", scopes: ["mcp"], granterScopes: [], operator: true, expiresAt: new Date(clock.now().getTime() - 1) }),
    ).rejects.toMatchObject({ errors: [{ path: "expiresAt" }] });
  });

  it("stops verifying a key once it expires, is revoked, or its user is deactivated", async () => {
    const { deps, user, clock } = await setup();
    const expiring = await createApiKey(deps, { userId: user._id, name: "x", scopes: ["mcp"], granterScopes: [], operator: true, expiresAt: new Date(clock.now().getTime() + 60_000) });
    await expect(verifyApiKey(deps, expiring.plaintext)).resolves.toMatchObject({ user: { _id: user._id }, allowances: { projects: 10 } });
    clock.advance(60_000);
    await expect(verifyApiKey(deps, expiring.plaintext)).rejects.toMatchObject({ code: "unauthorized" });
    const revoked = await createApiKey(deps, { userId: user._id, name: "y", scopes: ["mcp"], granterScopes: [], operator: true });
    await revokeApiKey(deps, user._id, revoked.key._id);
    await expect(verifyApiKey(deps, revoked.plaintext)).rejects.toMatchObject({ code: "unauthorized" });
    const live = await createApiKey(deps, { userId: user._id, name: "z", scopes: ["mcp"], granterScopes: [], operator: true });
    await deactivateUser(deps, user._id, "DELETE");
    await expect(verifyApiKey(deps, live.plaintext)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("writes lastUsedAt at most once a minute", async () => {
    const { deps, user, clock } = await setup();
    const { key, plaintext } = await createApiKey(deps, { userId: user._id, name: "x", scopes: ["mcp"], granterScopes: [], operator: true });
    await verifyApiKey(deps, plaintext);
    const first = (await deps.collections.apiKeys.findById(key._id))?.lastUsedAt;
    clock.advance(30_000);
    await verifyApiKey(deps, plaintext);
    expect((await deps.collections.apiKeys.findById(key._id))?.lastUsedAt).toEqual(first);
    clock.advance(31_000);
    await verifyApiKey(deps, plaintext);
    expect((await deps.collections.apiKeys.findById(key._id))?.lastUsedAt?.getTime()).toBe(clock.now().getTime());
  });

  it("answers another user's key as not found and pages newest first", async () => {
    const { deps, user } = await setup();
    const { user: other } = await createUser(deps, { email: "bo@example.com", name: "Bo", password: "long enough" });
    const a = await createApiKey(deps, { userId: user._id, name: "a", scopes: ["mcp"], granterScopes: [], operator: true });
    const b = await createApiKey(deps, { userId: user._id, name: "b", scopes: ["mcp"], granterScopes: [], operator: true });
    await expect(revokeApiKey(deps, other._id, a.key._id)).rejects.toMatchObject({ code: "not_found" });
    const page = await listApiKeys(deps, user._id, 1, undefined);
    expect(page.items.map((k) => k.name)).toEqual(["b"]);
    const next = await listApiKeys(deps, user._id, 1, page.nextCursor ?? undefined);
    expect(next.items.map((k) => k.name)).toEqual(["a"]);
    expect(b.key._id > a.key._id).toBe(true);
    await expect(listApiKeys(deps, user._id, 1, "bogus")).rejects.toMatchObject({ errors: [{ path: "cursor" }] });
  });
});

describe("users", () => {
  it("refuses a second account with the same email in another case", async () => {
    const { deps } = await setup();
    await expect(createUser(deps, { email: "ana@example.COM", name: "Ana 2", password: "long enough" })).rejects.toMatchObject({ code: "conflict" });
  });

  it("deactivates only with the word DELETE", async () => {
    const { deps, user } = await setup();
    await expect(deactivateUser(deps, user._id, "delete")).rejects.toMatchObject({ errors: [{ path: "confirmation" }] });
    expect((await deactivateUser(deps, user._id, "DELETE")).status).toBe("deactivated");
  });
});
