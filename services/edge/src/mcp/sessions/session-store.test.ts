import { ManualClock, openEmbeddedStore } from "@earshot/platform";
import { McpSessionStore } from "./session-store";

// The session store on the embedded adapter: expiry after the idle period, the per-credential bound, the
// credential a session belongs to, and subscription changes made through two replicas' caches.

const setup = async (options: { idleMs?: number; maxPerCredential?: number } = {}) => {
  const store = await openEmbeddedStore();
  // The embedded store drops documents past their TTL by the real time, so the manual clock starts now.
  const clock = new ManualClock(new Date());
  const sessions = new McpSessionStore(store, clock, options);
  await sessions.ensureIndexes();
  return { store, clock, sessions };
};

describe("MCP session store", () => {
  it("finds a session only for its own credential, and not once it has been idle too long", async () => {
    const { clock, sessions } = await setup({ idleMs: 60_000 });
    const s = await sessions.create("key_a", "usr_a");
    expect((await sessions.find(s._id, "key_a"))?._id).toBe(s._id);
    expect(await sessions.find(s._id, "key_b")).toBeUndefined();
    expect(await sessions.find("unknown", "key_a")).toBeUndefined();
    clock.advance(60_001);
    expect(await sessions.find(s._id, "key_a")).toBeUndefined();
  });

  it("moves the expiry along when the session is used", async () => {
    const { clock, sessions } = await setup({ idleMs: 120_000 });
    const s = await sessions.create("key_a", "usr_a");
    clock.advance(90_000);
    await sessions.touch((await sessions.find(s._id, "key_a"))!);
    clock.advance(90_000);
    expect(await sessions.find(s._id, "key_a", { fresh: true })).toBeDefined();
  });

  it("keeps at most the bound per credential, ending the least recently used first", async () => {
    const { clock, sessions } = await setup({ maxPerCredential: 3 });
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await sessions.create("key_a", "usr_a"));
      clock.advance(61_000);
    }
    // The oldest is used again, so the second is now the least recently used.
    await sessions.touch((await sessions.find(made[0]!._id, "key_a"))!);
    const other = await sessions.create("key_b", "usr_a");
    const fourth = await sessions.create("key_a", "usr_a");
    const live = await sessions.findMany([...made.map((s) => s._id), fourth._id, other._id]);
    expect([...live.keys()].sort()).toEqual([made[0]!._id, made[2]!._id, fourth._id, other._id].sort());
  });

  it("ends a session for every replica", async () => {
    const { store, clock, sessions } = await setup();
    const elsewhere = new McpSessionStore(store, clock);
    const s = await sessions.create("key_a", "usr_a");
    expect(await elsewhere.find(s._id, "key_a")).toBeDefined();
    await sessions.end(s._id);
    expect(await elsewhere.find(s._id, "key_a", { fresh: true })).toBeUndefined();
    expect(await sessions.find(s._id, "key_a")).toBeUndefined();
  });

  it("keeps a subscription another replica added meanwhile", async () => {
    const { store, clock, sessions } = await setup();
    const elsewhere = new McpSessionStore(store, clock);
    const s = await sessions.create("key_a", "usr_a");
    const here = (await sessions.find(s._id, "key_a"))!;
    const there = (await elsewhere.find(s._id, "key_a"))!;
    await sessions.subscribe(here, { uri: "earshot://projects/p1/mentions", projectId: "p1" });
    const after = await elsewhere.subscribe(there, { uri: "earshot://projects/p2/mentions", projectId: "p2" });
    expect(after.map((x) => x.uri)).toEqual(["earshot://projects/p1/mentions", "earshot://projects/p2/mentions"]);
    const left = await sessions.unsubscribe((await sessions.find(s._id, "key_a", { fresh: true }))!, "earshot://projects/p1/mentions");
    expect(left).toEqual([{ uri: "earshot://projects/p2/mentions", projectId: "p2" }]);
    // Subscribing twice to one URI keeps one subscription.
    const again = await sessions.subscribe((await sessions.find(s._id, "key_a", { fresh: true }))!, { uri: "earshot://projects/p2/mentions", projectId: "p2" });
    expect(again).toHaveLength(1);
  });
});
