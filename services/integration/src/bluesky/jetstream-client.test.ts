import type { CollectedPost } from "../collectors/collector";
import { JetstreamClient, MemoryCursorStore } from "./jetstream-client";
import { identityFrame, postFrame, startFakeJetstream, T0_US, type FakeJetstream } from "./jetstream-test-support";
import { readJetstreamFrame } from "./jetstream-wire";

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, k) => from + k);

/** Collects handed-on posts and lets a test wait until `n` have arrived. */
function sink() {
  const posts: CollectedPost[] = [];
  let waiter: { n: number; resolve: () => void } | undefined;
  return {
    posts,
    onPosts: (batch: CollectedPost[]) => {
      posts.push(...batch);
      if (waiter && posts.length >= waiter.n) waiter.resolve();
      return Promise.resolve();
    },
    until: (n: number) => (posts.length >= n ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { n, resolve }))),
  };
}

const rkeysOf = (posts: CollectedPost[]) => posts.map((p) => p.sourceId.split("/").pop());
const rkey = (i: number) => `3k${String(i).padStart(8, "0")}`;

describe("Jetstream client against a fake Jetstream", () => {
  let fake: FakeJetstream;
  afterEach(() => fake?.close());

  it("reads a post frame into a Bluesky post with its at-uri, bsky.app link and language; other frames only move the cursor", () => {
    const f = readJetstreamFrame(JSON.stringify(postFrame(3)));
    expect(f?.post).toMatchObject({
      source: "bluesky",
      sourceId: `at://did:plc:author3/app.bsky.feed.post/${rkey(3)}`,
      url: `https://bsky.app/profile/did:plc:author3/post/${rkey(3)}`,
      text: "post 3 about earshot",
      lang: "en",
      author: { id: "did:plc:author3", handle: "did:plc:author3" },
    });
    expect(readJetstreamFrame(JSON.stringify(identityFrame(4)))).toEqual({ timeUs: T0_US + 4000 });
    expect(readJetstreamFrame("not json")).toBeUndefined();
    const badDate = postFrame(5) as { commit: { record: { createdAt: string } } };
    badDate.commit.record.createdAt = "yesterday";
    expect(readJetstreamFrame(JSON.stringify(badDate))?.post?.publishedAt).toBe(new Date((T0_US + 5000) / 1000).toISOString());
  });

  it("a restart resumes from the saved cursor, rewound, with no post missed or repeated", async () => {
    fake = await startFakeJetstream([...range(0, 50).map((i) => postFrame(i)), identityFrame(50)]);
    const cursors = new MemoryCursorStore();
    const first = sink();
    const a = new JetstreamClient({ url: fake.url, cursors, onPosts: first.onPosts, rewindUs: 20_000 });
    await a.start();
    await first.until(50);
    await a.stop();
    expect(fake.connections[0]!.getAll("wantedCollections")).toEqual(["app.bsky.feed.post"]);
    expect(fake.connections[0]!.has("cursor")).toBe(false);

    fake.publish(range(51, 120).map((i) => postFrame(i)));
    const second = sink();
    const b = new JetstreamClient({ url: fake.url, cursors, onPosts: second.onPosts, rewindUs: 20_000 });
    await b.start();
    await second.until(69);
    await b.stop();
    // The saved cursor is the identity frame's (50), rewound 20 ms: posts 30..49 are replayed and dropped.
    expect(fake.connections[1]!.get("cursor")).toBe(String(T0_US + 50_000 - 20_000));
    expect([...rkeysOf(first.posts), ...rkeysOf(second.posts)]).toEqual([...range(0, 50), ...range(51, 120)].map(rkey));
    expect(cursors.value).toBe(T0_US + 119_000);
  });

  it("a dropped connection reconnects with backoff and continues where it was", async () => {
    fake = await startFakeJetstream(range(0, 10).map((i) => postFrame(i)));
    const got = sink();
    const client = new JetstreamClient({ url: fake.url, cursors: new MemoryCursorStore(), onPosts: got.onPosts, backoff: { initialMs: 10, maxMs: 100 } });
    await client.start();
    await got.until(10);
    fake.dropAll();
    fake.publish(range(10, 25).map((i) => postFrame(i)));
    await got.until(25);
    await client.settled();
    expect(client.health()).toMatchObject({ reconnects: 1, lastTimeUs: T0_US + 24_000 });
    await client.stop();
    expect(fake.connections).toHaveLength(2);
    expect(rkeysOf(got.posts)).toEqual(range(0, 25).map(rkey));
  });

  it("source health shows the stream's lag as now minus the last frame's time", async () => {
    fake = await startFakeJetstream([postFrame(0)]);
    const got = sink();
    const now = () => T0_US / 1000 + 2_500;
    const client = new JetstreamClient({ url: fake.url, cursors: new MemoryCursorStore(), onPosts: got.onPosts, now });
    expect(client.health().lagMs).toBeUndefined();
    await client.start();
    await got.until(1);
    await client.settled();
    expect(client.health()).toMatchObject({ connected: true, lagMs: 2_500, reconnects: 0 });
    await client.stop();
    expect(client.health().connected).toBe(false);
  });
});
