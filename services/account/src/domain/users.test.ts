import { ACCOUNT_TOPIC } from "../events";
import { newUser, openAccountWorld, PASSWORD, refusalOf } from "../test-support";
import { createApiKey, verifyApiKey } from "./api-keys";
import { hashPassword } from "./password";
import { authenticate, createUser, DECOY_PASSWORD_HASH, deactivateUser, getUser, reactivateUser, updateUser } from "./users";


describe("creating users", () => {
  it("creates a user with a lower-cased email and a trimmed name, owning a new free workspace", async () => {
    const world = await openAccountWorld();
    const { user, workspace } = await createUser(world.deps, { email: "  Ana@Example.COM ", name: "  Ana Lima ", password: PASSWORD });
    expect(user).toMatchObject({ email: "ana@example.com", name: "Ana Lima", status: "active", workspaceId: workspace._id });
    expect(user._id).toMatch(/^usr_[0-9A-Z]{26}$/);
    expect(workspace).toMatchObject({ ownerId: user._id, plan: "free" });
    expect(workspace._id).toMatch(/^wsp_/);
    expect(user.createdAt).toEqual(world.clock.now());
    expect(await world.deps.collections.workspaces.findById(workspace._id)).toMatchObject({ ownerId: user._id });
    expect(user.deactivatedAt).toBeUndefined();
  });

  it("stores a scrypt hash of the password, never the password", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    const stored = JSON.stringify(await world.store.collection("users").find({}));
    expect(stored).not.toContain(PASSWORD);
    expect(user.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
  });

  it("stores user.created in the outbox in the same commit, keyed by the workspace", async () => {
    const world = await openAccountWorld();
    const { user, workspace } = await newUser(world);
    const events = await world.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "user.created",
      source: "earshot/account",
      subject: user._id,
      topic: ACCOUNT_TOPIC,
      key: workspace._id,
      data: { userId: user._id, workspaceId: workspace._id, email: "ana@example.com" },
    });
  });

  it("names every bad field: email, name and password", async () => {
    const world = await openAccountWorld();
    const err = await refusalOf(createUser(world.deps, { email: "not-an-email", name: "   ", password: "short" }));
    expect(err.code).toBe("validation_failed");
    expect(err.errors.map((e) => e.path)).toEqual(["email", "name", "password"]);
    const long = await refusalOf(createUser(world.deps, { email: "a@b.co", name: "x".repeat(101), password: "p".repeat(201) }));
    expect(long.errors.map((e) => e.path)).toEqual(["name", "password"]);
    expect(await world.deps.collections.users.count({})).toBe(0);
    expect(await world.events()).toEqual([]);
  });

  it("refuses an email that grows past 254 bytes when lower-cased, naming email", async () => {
    const world = await openAccountWorld();
    const email = `${"İ".repeat(120)}@x.io`;
    expect(Buffer.byteLength(email)).toBe(245);
    expect(Buffer.byteLength(email.toLowerCase())).toBe(365);
    const err = await refusalOf(createUser(world.deps, { email, name: "Ana", password: PASSWORD }));
    expect(err).toMatchObject({ code: "validation_failed", errors: [{ path: "email", message: "must be an email address" }] });
    expect(await world.deps.collections.users.count({})).toBe(0);
  });

  it("accepts a name of exactly 100 characters and a password of 8", async () => {
    const world = await openAccountWorld();
    await expect(createUser(world.deps, { email: "a@b.co", name: "x".repeat(100), password: "12345678" })).resolves.toBeDefined();
  });

  it("answers conflict for an email already taken, whatever its case", async () => {
    const world = await openAccountWorld();
    await newUser(world, "ana@example.com");
    const err = await refusalOf(createUser(world.deps, { email: "ANA@example.com", name: "Ana 2", password: PASSWORD }));
    expect(err.code).toBe("conflict");
    expect(await world.deps.collections.workspaces.count({})).toBe(1);
  });

  it("lets the unique index decide two registrations of one email racing", async () => {
    const world = await openAccountWorld();
    const results = await Promise.allSettled([newUser(world, "race@example.com"), newUser(world, "Race@example.com")]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "conflict" } });
    expect(await world.deps.collections.users.count({})).toBe(1);
  });
});

describe("reading users", () => {
  it("reads a user by id or by email in any case, with the workspace", async () => {
    const world = await openAccountWorld();
    const { user, workspace } = await newUser(world);
    await expect(getUser(world.deps, { id: user._id })).resolves.toMatchObject({ user: { _id: user._id }, workspace: { _id: workspace._id } });
    await expect(getUser(world.deps, { email: "ANA@example.com" })).resolves.toMatchObject({ user: { _id: user._id } });
  });

  it("answers an unknown user as not found and asks for an id or an email", async () => {
    const world = await openAccountWorld();
    expect((await refusalOf(getUser(world.deps, { id: "usr_01JZZZZZZZZZZZZZZZZZZZZZZZ" }))).code).toBe("not_found");
    expect((await refusalOf(getUser(world.deps, {}))).errors).toEqual([{ path: "id", message: "id or email is required" }]);
  });
});

describe("authenticating", () => {
  it("accepts the right password, whatever the email's case", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    await expect(authenticate(world.deps, "Ana@Example.com", PASSWORD)).resolves.toMatchObject({ _id: user._id });
  });

  it("signs in an account registered under older rules with a password of 4 emoji (8 UTF-16 units)", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    await world.deps.collections.users.updateOne({ _id: user._id }, { $set: { passwordHash: await hashPassword("🔑🔑🔑🔑") } });
    await expect(authenticate(world.deps, "ana@example.com", "🔑🔑🔑🔑")).resolves.toMatchObject({ _id: user._id });
  });

  it("gives a wrong password and an unknown email the same answer", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    const wrong = await refusalOf(authenticate(world.deps, "ana@example.com", "not the password"));
    const unknown = await refusalOf(authenticate(world.deps, "nobody@example.com", PASSWORD));
    expect(wrong).toMatchObject({ code: "unauthorized", message: "Email or password is wrong." });
    expect(unknown).toMatchObject({ code: "unauthorized", message: "Email or password is wrong." });
  });

  it("checks an unknown email against a decoy hash of the same scheme, parameters and sizes as a real one", async () => {
    // Same scheme, N, r, p, salt and key sizes as a real hash: the same scrypt work.
    const shape = (h: string) => h.split("$").map((part, i) => (i < 4 ? part : Buffer.from(part, "base64url").length));
    expect(shape(DECOY_PASSWORD_HASH)).toEqual(shape(await hashPassword("anything at all")));
  });

  it("tells a deactivated user with the right password that the account is deactivated", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    await deactivateUser(world.deps, user._id, "DELETE");
    expect(await refusalOf(authenticate(world.deps, "ana@example.com", PASSWORD))).toMatchObject({ code: "unauthorized", message: "This account is deactivated." });
    // Without the password, nothing about the account's state is told.
    expect(await refusalOf(authenticate(world.deps, "ana@example.com", "not the password"))).toMatchObject({ message: "Email or password is wrong." });
  });
});

describe("updating the display name", () => {
  it("renames a user, trimmed, and emits user.updated", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    world.clock.advance(5000);
    const renamed = await updateUser(world.deps, user._id, { name: "  Ana Lima  " });
    expect(renamed).toMatchObject({ name: "Ana Lima", updatedAt: world.clock.now(), _v: 2 });
    expect(await world.deps.collections.users.findById(user._id)).toMatchObject({ name: "Ana Lima", _v: 2 });
    const events = await world.events();
    expect(events.map((e) => e.type)).toEqual(["user.created", "user.updated"]);
    expect(events[1]).toMatchObject({ key: user.workspaceId, data: { userId: user._id, fields: ["name"], name: "Ana Lima" } });
  });

  it("changes nothing and emits nothing when the name is the same", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    await updateUser(world.deps, user._id, { name: "Ana " });
    expect((await world.events()).map((e) => e.type)).toEqual(["user.created"]);
  });

  it("refuses an empty or over-long name, naming name", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    for (const name of ["", "   ", "x".repeat(101)]) {
      expect(await refusalOf(updateUser(world.deps, user._id, { name }))).toMatchObject({ code: "validation_failed", errors: [{ path: "name" }] });
    }
  });

  it("counts a name in user-perceived characters and refuses combining-mark abuse and huge input", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    await expect(updateUser(world.deps, user._id, { name: "🇫🇷".repeat(100) })).resolves.toMatchObject({ name: "🇫🇷".repeat(100) });
    for (const name of [`a${"\u0301".repeat(20_000)}`, "x".repeat(300_000)]) {
      expect(await refusalOf(updateUser(world.deps, user._id, { name }))).toMatchObject({ code: "validation_failed", errors: [{ path: "name" }] });
    }
  });

  it("refuses an over-long email before matching its pattern", async () => {
    const world = await openAccountWorld();
    const err = await refusalOf(createUser(world.deps, { email: `a@${"a.".repeat(150_000)}@`, name: "Ana", password: PASSWORD }));
    expect(err).toMatchObject({ code: "validation_failed", errors: [{ path: "email", message: "must be an email address" }] });
  });

  it("answers an unknown user as not found", async () => {
    const world = await openAccountWorld();
    expect((await refusalOf(updateUser(world.deps, "usr_01JZZZZZZZZZZZZZZZZZZZZZZZ", { name: "X" }))).code).toBe("not_found");
  });

  it("reads again and succeeds when another write lands between its read and its write", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    const users = world.deps.collections.users;
    const findById = users.findById.bind(users);
    jest.spyOn(users, "findById").mockImplementationOnce(async (id) => {
      const before = await findById(id);
      await users.updateOne({ _id: id }, { $set: { updatedAt: new Date(0) } });
      return before;
    });
    await expect(updateUser(world.deps, user._id, { name: "Ana Lima" })).resolves.toMatchObject({ name: "Ana Lima", _v: 3 });
  });
});

describe("deactivating and reactivating", () => {
  it("refuses any confirmation but the exact word DELETE, naming confirmation", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    for (const confirmation of ["", "delete", "DELETE ", "yes"]) {
      expect(await refusalOf(deactivateUser(world.deps, user._id, confirmation))).toMatchObject({
        code: "validation_failed",
        errors: [{ path: "confirmation" }],
      });
    }
    expect((await world.deps.collections.users.findById(user._id))?.status).toBe("active");
  });

  it("deactivates, stamps deactivatedAt and emits user.deactivated keyed by the workspace", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    world.clock.advance(60_000);
    const done = await deactivateUser(world.deps, user._id, "DELETE");
    expect(done).toMatchObject({ status: "deactivated", deactivatedAt: world.clock.now() });
    expect(await world.deps.collections.users.findById(user._id)).toMatchObject({ status: "deactivated", deactivatedAt: world.clock.now() });
    const events = await world.events();
    expect(events[1]).toMatchObject({ type: "user.deactivated", key: user.workspaceId, data: { userId: user._id, workspaceId: user.workspaceId } });
  });

  it("answers a second deactivation with the user as is, emitting nothing more", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    const first = await deactivateUser(world.deps, user._id, "DELETE");
    world.clock.advance(1000);
    const second = await deactivateUser(world.deps, user._id, "DELETE");
    expect(second.deactivatedAt).toEqual(first.deactivatedAt);
    expect((await world.events()).map((e) => e.type)).toEqual(["user.created", "user.deactivated"]);
  });

  it("stops the user's keys at once and starts them again on reactivation", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    const { plaintext } = await createApiKey(world.deps, { userId: user._id, scopes: ["projects:read"], granterScopes: [], operator: true });
    await deactivateUser(world.deps, user._id, "DELETE");
    expect(await refusalOf(verifyApiKey(world.deps, plaintext))).toMatchObject({ code: "unauthorized" });
    await reactivateUser(world.deps, "ANA@example.com");
    await expect(verifyApiKey(world.deps, plaintext)).resolves.toMatchObject({ user: { _id: user._id } });
  });

  it("reactivates by email, clears deactivatedAt and emits user.reactivated", async () => {
    const world = await openAccountWorld();
    const { user } = await newUser(world);
    await deactivateUser(world.deps, user._id, "DELETE");
    const back = await reactivateUser(world.deps, "ana@example.com");
    expect(back.status).toBe("active");
    expect(back.deactivatedAt).toBeUndefined();
    const stored = await world.deps.collections.users.findById(user._id);
    expect(stored?.status).toBe("active");
    expect(stored?.deactivatedAt).toBeUndefined();
    await expect(authenticate(world.deps, "ana@example.com", PASSWORD)).resolves.toBeDefined();
    const events = await world.events();
    expect(events.map((e) => e.type)).toEqual(["user.created", "user.deactivated", "user.reactivated"]);
    expect(events[2]).toMatchObject({ key: user.workspaceId, data: { userId: user._id, workspaceId: user.workspaceId } });
  });

  it("leaves an active user as is on reactivation and answers an unknown email as not found", async () => {
    const world = await openAccountWorld();
    await newUser(world);
    await expect(reactivateUser(world.deps, "ana@example.com")).resolves.toMatchObject({ status: "active", _v: 1 });
    expect((await world.events()).map((e) => e.type)).toEqual(["user.created"]);
    expect((await refusalOf(reactivateUser(world.deps, "nobody@example.com"))).code).toBe("not_found");
    expect((await refusalOf(reactivateUser(world.deps, "nobody"))).errors).toEqual([{ path: "email", message: "must be an email address" }]);
  });
});
