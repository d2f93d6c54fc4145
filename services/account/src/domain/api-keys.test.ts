import { ALL_SCOPES } from "../scopes";
import { type AccountWorld, newUser, openAccountWorld, refusalOf } from "../test-support";
import { API_KEYS, type ApiKeyDoc } from "../store";
import { createApiKey, type CreateApiKeyInput, hashKey, listApiKeys, revokeApiKey, verifyApiKey } from "./api-keys";
import { deactivateUser } from "./users";


const setup = async () => {
  const world = await openAccountWorld();
  const { user, workspace } = await newUser(world);
  const mint = (input: Partial<CreateApiKeyInput> = {}, effectKey?: string) =>
    createApiKey(world.deps, { userId: user._id, scopes: ["projects:read"], granterScopes: [], operator: true, ...input }, effectKey);
  return { ...world, user, workspace, mint };
};

const minutes = (world: AccountWorld, n: number) => new Date(world.clock.now().getTime() + n * 60_000);

describe("creating API keys", () => {
  it("returns a plaintext of svc_sk_ and 32 random bytes in base64url, once", async () => {
    const { mint } = await setup();
    const a = await mint();
    const b = await mint();
    expect(a.plaintext).toMatch(/^svc_sk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.plaintext.slice(7), "base64url")).toHaveLength(32);
    expect(a.plaintext).not.toBe(b.plaintext);
  });

  it("stores only the SHA-256 hash and an 11-character display prefix, never the plaintext", async () => {
    const { mint, store } = await setup();
    const { key, plaintext } = await mint();
    expect(key.hash).toBe(hashKey(plaintext));
    expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.prefix).toBe(plaintext.slice(0, 11));
    expect(key.prefix).toMatch(/^svc_sk_.{4}$/);
    const stored = JSON.stringify([await store.collection("api_keys").find({}), await store.collection("outbox").find({})]);
    expect(stored).not.toContain(plaintext);
    expect(stored).not.toContain(plaintext.slice(11));
  });

  it("records owner, workspace, scopes, expiry and creation time, and emits api_key.created", async () => {
    const world = await setup();
    const expiresAt = minutes(world, 60);
    const { key } = await world.mint({ name: " CI deploy ", scopes: ["projects:read", "mcp"], expiresAt });
    expect(key).toMatchObject({
      userId: world.user._id,
      workspaceId: world.workspace._id,
      name: "CI deploy",
      scopes: ["projects:read", "mcp"],
      expiresAt,
      createdAt: world.clock.now(),
    });
    expect(key._id).toMatch(/^key_/);
    expect(key.lastUsedAt).toBeUndefined();
    expect(key.revokedAt).toBeUndefined();
    const events = await world.events();
    expect(events[1]).toMatchObject({
      type: "api_key.created",
      subject: key._id,
      key: world.workspace._id,
      data: { keyId: key._id, userId: world.user._id, scopes: ["projects:read", "mcp"], expiresAt: expiresAt.toISOString() },
    });
  });

  it("names a key API key when no name is given and refuses a name over 100 characters", async () => {
    const { mint } = await setup();
    expect((await mint()).key.name).toBe("API key");
    expect(await refusalOf(mint({ name: "k".repeat(101) }))).toMatchObject({ code: "validation_failed", errors: [{ path: "name" }] });
    expect(await refusalOf(mint({ name: "  " }))).toMatchObject({ errors: [{ path: "name" }] });
  });

  it("removes duplicate scopes, keeping their order", async () => {
    const { mint } = await setup();
    expect((await mint({ scopes: ["mcp", "projects:read", "mcp", "projects:read"] })).key.scopes).toEqual(["mcp", "projects:read"]);
  });

  it("refuses a key without scopes", async () => {
    const { mint } = await setup();
    expect(await refusalOf(mint({ scopes: [] }))).toMatchObject({ code: "validation_failed", errors: [{ path: "scopes" }] });
  });

  it("refuses an unknown scope, naming its position", async () => {
    const { mint } = await setup();
    const err = await refusalOf(mint({ scopes: ["projects:read", "projects:admin", "root"] }));
    expect(err.code).toBe("validation_failed");
    expect(err.errors.map((e) => e.path)).toEqual(["scopes.1", "scopes.2"]);
  });

  it("refuses a key with a scope its granter lacks", async () => {
    const { mint, store } = await setup();
    const err = await refusalOf(mint({ scopes: ["projects:read", "projects:write"], granterScopes: ["projects:read", "account:write"], operator: false }));
    expect(err).toMatchObject({ code: "forbidden", message: "A key cannot grant the scope projects:write it does not hold." });
    expect(await store.collection("api_keys").count({})).toBe(0);
  });

  it("lets a key grant a subset of its granter's scopes", async () => {
    const { mint } = await setup();
    const { key } = await mint({ scopes: ["projects:read"], granterScopes: ["projects:read", "projects:write", "account:write"], operator: false });
    expect(key.scopes).toEqual(["projects:read"]);
  });

  it("lets an operator grant any scope", async () => {
    const { mint } = await setup();
    expect((await mint({ scopes: [...ALL_SCOPES], granterScopes: [], operator: true })).key.scopes).toEqual(ALL_SCOPES);
  });

  it("refuses an expiry that is not in the future", async () => {
    const world = await setup();
    for (const expiresAt of [minutes(world, -1), world.clock.now()]) {
      expect(await refusalOf(world.mint({ expiresAt }))).toMatchObject({ code: "validation_failed", errors: [{ path: "expiresAt" }] });
    }
  });

  it("refuses keys for a deactivated account and for an unknown user", async () => {
    const world = await setup();
    await deactivateUser(world.deps, world.user._id, "DELETE");
    expect(await refusalOf(world.mint())).toMatchObject({ code: "forbidden" });
    expect(await refusalOf(world.mint({ userId: "usr_01JZZZZZZZZZZZZZZZZZZZZZZZ" }))).toMatchObject({ code: "not_found" });
  });
});

describe("re-running a key creation with one effect key", () => {
  it("revokes the orphaned key and issues one usable key when a create is re-run with the same effect key", async () => {
    const { mint, deps, store } = await setup();
    const first = await mint({ name: "deploy" }, "effect-key-1");
    const again = await mint({ name: "deploy" }, "effect-key-1");
    expect(again.key._id).not.toBe(first.key._id);
    expect(again.key).toMatchObject({ name: "deploy", scopes: ["projects:read"] });
    await expect(verifyApiKey(deps, first.plaintext)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(verifyApiKey(deps, again.plaintext)).resolves.toMatchObject({ key: { _id: again.key._id } });
    const keys = await store.collection<ApiKeyDoc>(API_KEYS).find({});
    expect(keys.filter((k) => !k.revokedAt).map((k) => k._id)).toEqual([again.key._id]);
    expect((await deps.outbox.effectOf("effect-key-1"))?.resourceId).toBe(again.key._id);
  });

  it("leaves one usable key when two runs with one effect key race", async () => {
    const { mint, store } = await setup();
    await Promise.all([mint({}, "effect-key-race"), mint({}, "effect-key-race")]);
    const keys = await store.collection<ApiKeyDoc>(API_KEYS).find({});
    expect(keys.filter((k) => !k.revokedAt)).toHaveLength(1);
  });

  it("mints independent keys for different effect keys and without one", async () => {
    const { mint, store } = await setup();
    await mint({}, "effect-key-a");
    await mint({}, "effect-key-b");
    await mint();
    const keys = await store.collection<ApiKeyDoc>(API_KEYS).find({});
    expect(keys.filter((k) => !k.revokedAt)).toHaveLength(3);
  });
});

describe("verifying API keys", () => {
  it("resolves a key to its user, workspace, scopes and the plan's allowances", async () => {
    const world = await setup();
    const { key, plaintext } = await world.mint({ scopes: ["projects:read", "mcp"] });
    const verified = await verifyApiKey(world.deps, plaintext);
    expect(verified.key._id).toBe(key._id);
    expect(verified.user).toMatchObject({ _id: world.user._id, email: "ana@example.com" });
    expect(verified.workspace._id).toBe(world.workspace._id);
    expect(verified.key.scopes).toEqual(["projects:read", "mcp"]);
    expect(verified.allowances).toEqual({ projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 });
  });

  it("gives one answer for an unknown, malformed or empty key", async () => {
    const world = await setup();
    const { plaintext } = await world.mint();
    const other = `svc_sk_${"A".repeat(43)}`;
    for (const presented of [other, plaintext.slice(0, -1), `${plaintext}x`, "", "Bearer x", plaintext.replace("svc_sk_", "svc_pk_")]) {
      expect(await refusalOf(verifyApiKey(world.deps, presented))).toMatchObject({
        code: "unauthorized",
        message: "The API key is invalid, expired or revoked.",
      });
    }
  });

  it("refuses an expired key once the clock passes its expiry", async () => {
    const world = await setup();
    const { plaintext } = await world.mint({ expiresAt: minutes(world, 30) });
    world.clock.advance(30 * 60_000 - 1);
    await expect(verifyApiKey(world.deps, plaintext)).resolves.toBeDefined();
    world.clock.advance(1);
    expect(await refusalOf(verifyApiKey(world.deps, plaintext))).toMatchObject({ code: "unauthorized", message: "The API key is invalid, expired or revoked." });
  });

  it("refuses a revoked key with the same answer", async () => {
    const world = await setup();
    const { key, plaintext } = await world.mint();
    await revokeApiKey(world.deps, world.user._id, key._id);
    expect(await refusalOf(verifyApiKey(world.deps, plaintext))).toMatchObject({ code: "unauthorized", message: "The API key is invalid, expired or revoked." });
  });

  it("refuses every key of a deactivated user with the same answer", async () => {
    const world = await setup();
    const a = await world.mint();
    const b = await world.mint({ scopes: ["mcp"] });
    await deactivateUser(world.deps, world.user._id, "DELETE");
    for (const { plaintext } of [a, b]) {
      expect(await refusalOf(verifyApiKey(world.deps, plaintext))).toMatchObject({ code: "unauthorized", message: "The API key is invalid, expired or revoked." });
    }
  });

  it("writes lastUsedAt at most once a minute", async () => {
    const world = await setup();
    const { key, plaintext } = await world.mint();
    const lastUsed = async () => (await world.deps.collections.apiKeys.findById(key._id))?.lastUsedAt;
    await verifyApiKey(world.deps, plaintext);
    const first = world.clock.now();
    expect(await lastUsed()).toEqual(first);
    world.clock.advance(30_000);
    await verifyApiKey(world.deps, plaintext);
    world.clock.advance(29_999);
    await verifyApiKey(world.deps, plaintext);
    expect(await lastUsed()).toEqual(first);
    expect((await world.deps.collections.apiKeys.findById(key._id))?._v).toBe(2);
    world.clock.advance(1);
    await verifyApiKey(world.deps, plaintext);
    expect(await lastUsed()).toEqual(world.clock.now());
  });

  it("writes lastUsedAt once when verifications of one key run together", async () => {
    const world = await setup();
    const { key, plaintext } = await world.mint();
    await Promise.all(Array.from({ length: 10 }, () => verifyApiKey(world.deps, plaintext)));
    expect((await world.deps.collections.apiKeys.findById(key._id))?._v).toBe(2);
  });
});

describe("revoking API keys", () => {
  it("revokes a key at once, stamps revokedAt and emits api_key.revoked", async () => {
    const world = await setup();
    const { key } = await world.mint();
    world.clock.advance(1000);
    const revoked = await revokeApiKey(world.deps, world.user._id, key._id);
    expect(revoked.revokedAt).toEqual(world.clock.now());
    expect((await world.deps.collections.apiKeys.findById(key._id))?.revokedAt).toEqual(world.clock.now());
    const events = await world.events();
    expect(events[2]).toMatchObject({ type: "api_key.revoked", subject: key._id, key: world.workspace._id, data: { keyId: key._id, userId: world.user._id } });
  });

  it("answers a second revocation with the key as is, emitting nothing more", async () => {
    const world = await setup();
    const { key } = await world.mint();
    const first = await revokeApiKey(world.deps, world.user._id, key._id);
    world.clock.advance(1000);
    const second = await revokeApiKey(world.deps, world.user._id, key._id);
    expect(second.revokedAt).toEqual(first.revokedAt);
    expect((await world.events()).filter((e) => e.type === "api_key.revoked")).toHaveLength(1);
  });

  it("answers another user's key as not found, leaving it working", async () => {
    const world = await setup();
    const { user: other } = await newUser(world, "bo@example.com", "Bo");
    const { key, plaintext } = await world.mint();
    expect(await refusalOf(revokeApiKey(world.deps, other._id, key._id))).toMatchObject({ code: "not_found", message: "API key was not found." });
    expect(await refusalOf(revokeApiKey(world.deps, world.user._id, "key_01JZZZZZZZZZZZZZZZZZZZZZZZ"))).toMatchObject({ code: "not_found" });
    await expect(verifyApiKey(world.deps, plaintext)).resolves.toBeDefined();
  });

  it("revokes a key whose lastUsedAt a verification wrote between the read and the write", async () => {
    const world = await setup();
    const { key, plaintext } = await world.mint();
    const keys = world.deps.collections.apiKeys;
    const findById = keys.findById.bind(keys);
    jest.spyOn(keys, "findById").mockImplementationOnce(async (id) => {
      const before = await findById(id);
      await verifyApiKey(world.deps, plaintext);
      return before;
    });
    await expect(revokeApiKey(world.deps, world.user._id, key._id)).resolves.toMatchObject({ revokedAt: world.clock.now() });
    expect(await refusalOf(verifyApiKey(world.deps, plaintext))).toMatchObject({ code: "unauthorized" });
  });
});

describe("listing API keys", () => {
  it("lists the user's keys newest first, following the cursor to the end", async () => {
    const world = await setup();
    const names = ["a", "b", "c", "d", "e"];
    for (const name of names) {
      await world.mint({ name });
      world.clock.advance(1);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listApiKeys(world.deps, { userId: world.user._id, limit: 2, cursor });
      seen.push(...page.items.map((k) => k.name));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(["e", "d", "c", "b", "a"]);
    expect(pages).toBe(3);
  });

  it("includes revoked keys and never another user's", async () => {
    const world = await setup();
    const { user: other } = await newUser(world, "bo@example.com", "Bo");
    const { key } = await world.mint({ name: "mine" });
    await revokeApiKey(world.deps, world.user._id, key._id);
    await createApiKey(world.deps, { userId: other._id, name: "theirs", scopes: ["mcp"], granterScopes: [], operator: true });
    const page = await listApiKeys(world.deps, { userId: world.user._id });
    expect(page.items.map((k) => k.name)).toEqual(["mine"]);
    expect(page.items[0]?.revokedAt).toBeDefined();
    expect(page.nextCursor).toBeNull();
  });

  it("pages by 20 unless told, and refuses a limit outside 1..100", async () => {
    const world = await setup();
    for (let i = 0; i < 21; i++) await world.mint({ name: `k${i}` });
    const page = await listApiKeys(world.deps, { userId: world.user._id });
    expect(page.items).toHaveLength(20);
    expect(page.nextCursor).not.toBeNull();
    expect((await listApiKeys(world.deps, { userId: world.user._id, limit: 100 })).items).toHaveLength(21);
    for (const limit of [0, -1, 101, 2.5]) {
      expect(await refusalOf(listApiKeys(world.deps, { userId: world.user._id, limit }))).toMatchObject({ code: "validation_failed", errors: [{ path: "limit" }] });
    }
  });

  it("refuses a cursor it did not issue, naming cursor", async () => {
    const world = await setup();
    await world.mint();
    for (const cursor of ["bogus", "!!!", Buffer.from("[1]").toString("base64url")]) {
      expect(await refusalOf(listApiKeys(world.deps, { userId: world.user._id, limit: 1, cursor }))).toMatchObject({
        code: "validation_failed",
        errors: [{ path: "cursor" }],
      });
    }
  });

  it("answers an unknown user as not found", async () => {
    const world = await setup();
    expect(await refusalOf(listApiKeys(world.deps, { userId: "usr_01JZZZZZZZZZZZZZZZZZZZZZZZ" }))).toMatchObject({ code: "not_found" });
  });
});
