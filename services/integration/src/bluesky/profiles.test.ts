import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CollectedPost } from "../collectors/collector";
import { ProviderHttp } from "../collectors/provider-http";
import { BlueskyProfiles, PROFILES_PAUSE_MS } from "./profiles";

// Authors' profiles for matched firehose posts, against a fake public AppView written from the XRPC docs
// (app.bsky.actor.getProfiles: `actors` repeated, at most 25; profiles of the DIDs it can name). The clock
// is the test's: what is remembered, and for how long lookups pause, follow it.

const post = (n: number): CollectedPost => ({
  source: "bluesky",
  sourceId: `at://did:plc:a${n}/app.bsky.feed.post/3k${n}`,
  url: `https://bsky.app/profile/did:plc:a${n}/post/3k${n}`,
  text: "earshot",
  author: { id: `did:plc:a${n}`, handle: `did:plc:a${n}`, name: `did:plc:a${n}` },
  publishedAt: "2026-11-28T12:00:00.000Z",
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => post(from + i));

describe("Bluesky authors' profiles", () => {
  let server: Server;
  let url: string;
  const calls: string[][] = [];
  let status = 200;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const actors = new URL(req.url ?? "/", "http://x").searchParams.getAll("actors");
      calls.push(actors);
      if (status !== 200) return void res.writeHead(status, { "content-type": "application/json", "retry-after": "120" }).end('{"error":"Unavailable"}');
      if (actors.length > 25) return void res.writeHead(400).end('{"error":"InvalidRequest"}');
      // DIDs ending in 9 are gone (the AppView leaves them out).
      const profiles = actors.filter((d) => !d.endsWith("9")).map((did) => ({ did, handle: `${did.slice(8)}.test`, displayName: `Name ${did.slice(8)}` }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ profiles }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("asks 25 DIDs a call, once each, remembers who it could not name, and pauses after a failure", async () => {
    let now = 1_000_000;
    const profiles = new BlueskyProfiles(new ProviderHttp({ retries: 0, now: () => now }), url, () => now);
    calls.length = 0;
    status = 200;
    const named = await profiles.withAuthors(range(0, 60));
    expect(calls.map((c) => c.length)).toEqual([25, 25, 10]);
    expect(named[3]).toMatchObject({ url: "https://bsky.app/profile/a3.test/post/3k3", author: { id: "did:plc:a3", handle: "a3.test", name: "Name a3" } });
    // Not named: the DID stays, in the link too.
    expect(named[9]).toEqual(post(9));

    // Known authors and known misses are not asked again.
    calls.length = 0;
    await profiles.withAuthors([...range(0, 60), post(60)]);
    expect(calls).toEqual([["did:plc:a60"]]);

    // The AppView fails: the posts go on with DIDs, and no call is made until the pause (or the 429's reset) ends.
    calls.length = 0;
    status = 429;
    expect(await profiles.withAuthors([post(61)])).toEqual([post(61)]);
    status = 200;
    now += PROFILES_PAUSE_MS;
    expect(await profiles.withAuthors([post(61), post(3)])).toEqual([post(61), named[3]]);
    expect(calls).toHaveLength(1);
    now += 60_000;
    expect((await profiles.withAuthors([post(61)]))[0]!.author.handle).toBe("a61.test");
    expect(calls).toHaveLength(2);
  });
});
