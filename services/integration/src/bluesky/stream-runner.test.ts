import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createBlueskyCollector, searchedPostOf } from "../collectors/bluesky";
import { getSourceHealth } from "../domain/health";
import { type IntegrationWorld, openIntegrationWorld } from "../test-support";
import { wireBlueskyStream } from "../wiring";
import { type FakeJetstream, postFrame, startFakeJetstream, T0_US } from "./jetstream-test-support";
import type { BlueskyStream } from "./stream-runner";

// Bluesky's firehose wired to projects: a fake Jetstream and a fake public AppView (getProfiles, from the
// XRPC docs: `actors` repeated, profiles of the DIDs it knows), the service's store and outbox.

interface FakeAppView {
  url: string;
  profileCalls: string[][];
  close(): Promise<void>;
}

const startFakeAppView = async (): Promise<FakeAppView> => {
  const profileCalls: string[][] = [];
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    if (u.pathname !== "/xrpc/app.bsky.actor.getProfiles") return void res.writeHead(404).end();
    const actors = u.searchParams.getAll("actors");
    profileCalls.push(actors);
    // author6's handle no longer resolves: the AppView says handle.invalid.
    const profiles = actors.map((did) => {
      const n = did.replace("did:plc:author", "");
      return { did, handle: n === "6" ? "handle.invalid" : `author${n}.test`, ...(n === "2" ? {} : { displayName: `Author ${n}` }) };
    });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ profiles }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, profileCalls, close: () => new Promise<void>((r) => server.close(() => r())) };
};

const rkey = (i: number) => `3k${String(i).padStart(8, "0")}`;

describe("Bluesky's live stream, wired to projects", () => {
  let fake: FakeJetstream;
  let appview: FakeAppView;
  let world: IntegrationWorld;
  const streams: BlueskyStream[] = [];
  const stream = (deps = world.deps) => {
    const s = wireBlueskyStream(deps, { retries: 0 }, { saveEveryMs: 0, backoff: { initialMs: 10, maxMs: 50 } });
    streams.push(s);
    return s;
  };
  beforeEach(async () => {
    fake = await startFakeJetstream();
    appview = await startFakeAppView();
    world = await openIntegrationWorld({ settings: { EARSHOT_BLUESKY_JETSTREAM_URL: fake.url, EARSHOT_BLUESKY_PUBLIC_API_URL: appview.url } });
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) await s.stop();
    await world.close();
    await appview.close();
    await fake.close();
  });

  const collected = async (projectId: string) =>
    (await world.events()).filter((e) => e.type === "post.collected" && (e.data as { projectId: string }).projectId === projectId).map((e) => e.data as { sourceId: string });
  const keywords: Record<string, Record<string, unknown>> = {};
  const listening = async (value: string, sources = ["bluesky"]) => {
    const projectId = await world.newProject({ enabledSources: sources });
    keywords[projectId] = await world.addKeyword(projectId, value, { sources });
    return projectId;
  };

  it("hands a post to each project listening on Bluesky whose keyword it matches, once, with its author's handle and name", async () => {
    const a = await listening("earshot");
    const onX = await listening("earshot", ["x"]);
    const c = await listening("firehose", ["bluesky", "x"]);
    const s = stream();
    await s.tick();
    expect(s.reading).toBe(true);
    fake.publish([postFrame(1, "trying earshot today"), postFrame(2, "the firehose, read by earshot"), postFrame(3, "nothing to see"), postFrame(6, "earshot from a lost handle")]);
    await s.until(4);
    const mine = await collected(a);
    expect(mine.map((p) => p.sourceId).sort()).toEqual([1, 2, 6].map((i) => `at://did:plc:author${i}/app.bsky.feed.post/${rkey(i)}`));
    expect(mine.find((p) => p.sourceId.endsWith(rkey(1)))).toMatchObject({
      url: `https://bsky.app/profile/author1.test/post/${rkey(1)}`,
      author: { id: "did:plc:author1", handle: "author1.test", name: "Author 1", url: "https://bsky.app/profile/author1.test" },
      text: "trying earshot today",
    });
    // No display name: the handle; a handle that no longer resolves: the DID.
    expect(mine.find((p) => p.sourceId.endsWith(rkey(2)))).toMatchObject({ author: { handle: "author2.test", name: "author2.test" } });
    expect(mine.find((p) => p.sourceId.endsWith(rkey(6)))).toMatchObject({ author: { handle: "did:plc:author6" }, url: `https://bsky.app/profile/did:plc:author6/post/${rkey(6)}` });
    expect((await collected(c)).map((p) => p.sourceId)).toEqual([`at://did:plc:author2/app.bsky.feed.post/${rkey(2)}`]);
    expect(await collected(onX)).toEqual([]);
    // Only the matched posts' authors were looked up, in one call.
    expect(appview.profileCalls).toEqual([["did:plc:author1", "did:plc:author2", "did:plc:author6"]]);
    const notes = async () => (await getSourceHealth(world.deps, world.caller({ [a]: "viewer" }), a)).find((h) => h.source === "bluesky")!.notes.join(" ");
    const health = (await getSourceHealth(world.deps, world.caller({ [a]: "viewer" }), a)).find((h) => h.source === "bluesky")!;
    expect(health).toMatchObject({ state: "collecting", postsLast24h: 3 });
    expect(health.notes.join(" ")).toMatch(/Live stream: connected, [0-9.]+ s behind the network/);
    const lag = async () => Number(/connected, ([0-9.]+) s behind/.exec(await notes())![1]);
    const before = await lag();
    expect(health.notes.join(" ")).toMatch(/Search and backfill are off/);
    // Nothing arrives for a minute: the lag grows at the next tick even though no cursor is saved.
    world.clock.advance(60_000);
    await s.tick();
    expect(await lag()).toBeCloseTo(before + 60, 0);
    // Jetstream goes away: a tick after the client saw its connection close, health says so.
    await fake.close();
    // The store answers without I/O, so each try first lets the socket's close event in.
    while (/connected,/.test(await notes())) await new Promise((r) => setImmediate(r)).then(() => s.tick());
    expect(await notes()).toMatch(/Live stream: disconnected( \(.+\))?; reconnecting\./);
  });

  it("resumes after a restart from the saved cursor: no post missed, none handed on twice", async () => {
    const a = await listening("earshot");
    const first = stream();
    await first.tick();
    fake.publish([1, 2, 3, 4, 5].map((i) => postFrame(i, `earshot ${i}`)));
    await first.until(5);
    await first.stop();
    // Published while nobody reads; the restart asks for 5 s before its cursor, so 1..5 come again too.
    fake.publish([6, 7, 8].map((i) => postFrame(i, `earshot ${i}`)));
    const second = stream();
    await second.tick();
    await second.until(3);
    expect(fake.connections.at(-1)!.get("cursor")).toBe(String(T0_US + 5000 - 5_000_000));
    expect((await collected(a)).map((p) => p.sourceId.split("/").pop())).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(rkey));
    expect((await world.deps.collections.streams.findById("bluesky"))?.cursorUs).toBe(T0_US + 8000);
  });

  it("after a crash, the replica taking over replays from the last saved cursor, and what was handed on already is dropped", async () => {
    const a = await listening("earshot");
    // Cursors saved at most once a minute of the test's clock, which stands still: only the first batch's is written.
    const crashing = wireBlueskyStream(world.deps, { retries: 0 }, { saveEveryMs: 60_000, backoff: { initialMs: 10, maxMs: 50 } });
    streams.push(crashing);
    await crashing.tick();
    fake.publish([1, 2].map((i) => postFrame(i, `earshot ${i}`)));
    await crashing.until(2);
    fake.publish([3, 4, 5].map((i) => postFrame(i, `earshot ${i}`)));
    await crashing.until(5);
    expect((await world.deps.collections.streams.findById("bluesky"))?.cursorUs).toBe(T0_US + 2000);
    // It stops renewing (it died, still connected): once its lease lapses another replica takes over and
    // reads from post 2's cursor, so 3 to 5 come again, while the dead one may still hand on 6 too.
    world.clock.advance(61_000);
    const nextDeps = world.replica();
    const next = stream(nextDeps);
    await next.tick();
    expect(next.reading).toBe(true);
    await next.until(3);
    fake.publish([postFrame(6, "earshot 6")]);
    await next.until(4);
    await crashing.until(6);
    expect((await collected(a)).map((p) => p.sourceId.split("/").pop())).toEqual([1, 2, 3, 4, 5, 6].map(rkey));
    // The dead one learns at its next tick that the stream is no longer its own, and closes it.
    await crashing.tick();
    expect(crashing.reading).toBe(false);
    expect((await world.deps.collections.streams.findById("bluesky"))?.leaseOwner).toBe(nextDeps.replicaId);
  });

  it("is read by one replica at a time, taken over when the holder's lease lapses, and not read while no project listens", async () => {
    const idle = stream();
    await idle.tick();
    expect(idle.reading).toBe(false);
    expect(fake.connections).toHaveLength(0);
    const a = await listening("earshot");
    const [one, two] = [stream(), stream(world.replica())];
    await one.tick();
    await two.tick();
    expect([one.reading, two.reading]).toEqual([true, false]);
    // The holder stops renewing (a replica that died): after the lease, the other takes over.
    world.clock.advance(61_000);
    await two.tick();
    await one.tick();
    expect([one.reading, two.reading]).toEqual([false, true]);
    fake.publish([postFrame(9, "earshot after the takeover")]);
    await two.until(1);
    expect((await collected(a)).map((p) => p.sourceId.split("/").pop())).toEqual([rkey(9)]);
    // The last keyword on Bluesky goes: the stream is closed and the lease given back.
    world.clock.advance(1_000);
    await world.keywordEvent("keyword.deactivated", { ...keywords[a], active: false, updatedAt: world.clock.now().toISOString() });
    await two.tick();
    expect(two.reading).toBe(false);
    expect((await world.deps.collections.streams.findById("bluesky"))?.leaseOwner).toBeUndefined();
  });

  it("searches a new keyword 24 h back with searchPosts only when an app password is set, as the stream names posts", () => {
    const deps = { settings: world.settings, http: undefined as never, quota: undefined as never, logger: undefined as never, now: () => world.clock.now() };
    expect(createBlueskyCollector(deps).searchesKeywords).toBe(false);
    expect(createBlueskyCollector({ ...deps, settings: { ...world.settings, EARSHOT_BLUESKY_IDENTIFIER: "me.bsky.social", EARSHOT_BLUESKY_APP_PASSWORD: "app-pass" } }).searchesKeywords).toBe(true);
    expect(
      searchedPostOf({ uri: "at://did:plc:x/app.bsky.feed.post/3kabc", cid: "c", author: { did: "did:plc:x", handle: "x.test", displayName: "X" }, record: { text: "earshot", createdAt: "2026-11-28T10:00:00Z", langs: ["en"] }, indexedAt: "2026-11-28T10:00:01Z" }),
    ).toEqual({
      source: "bluesky",
      sourceId: "at://did:plc:x/app.bsky.feed.post/3kabc",
      url: "https://bsky.app/profile/x.test/post/3kabc",
      text: "earshot",
      author: { id: "did:plc:x", handle: "x.test", name: "X", url: "https://bsky.app/profile/x.test" },
      publishedAt: "2026-11-28T10:00:00.000Z",
      lang: "en",
    });
  });
});
