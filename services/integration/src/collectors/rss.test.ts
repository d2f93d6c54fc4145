import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getSourceHealth } from "../domain/health";
import { createFeed, deleteFeed, FEED_FAILING_MS, listFeeds, reportFailingFeeds } from "../domain/feeds";
import { type IntegrationWorld, openIntegrationWorld, refusalOf } from "../test-support";
import type { PollInput } from "./collector";

// The rss collector against a feed server written from HTTP's conditional GET (ETag / If-None-Match,
// Last-Modified / If-Modified-Since, 304) and the feed formats: what arrives, once, and what is refused.

interface Served {
  body: string;
  etag?: string;
  lastModified?: string;
  status?: number;
}

const rss = (items: Array<{ id: string; title: string; at?: string }>) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Acme news</title>${items
    .map((i) => `<item><guid>${i.id}</guid><link>https://news.example/${i.id}</link><title>${i.title}</title>${i.at ? `<pubDate>${i.at}</pubDate>` : ""}</item>`)
    .join("")}</channel></rss>`;

const atom = (entries: Array<{ id: string; title: string; at: string }>) =>
  `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Releases</title>${entries
    .map((e) => `<entry><id>${e.id}</id><link href="https://releases.example/${e.id}"/><title>${e.title}</title><updated>${e.at}</updated></entry>`)
    .join("")}</feed>`;

describe("RSS and Atom feeds", () => {
  let server: Server;
  let base: string;
  const served = new Map<string, Served>();
  const requests: Array<{ path: string; ifNoneMatch?: string; ifModifiedSince?: string }> = [];
  let world: IntegrationWorld;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? "/";
      requests.push({ path, ifNoneMatch: req.headers["if-none-match"], ifModifiedSince: req.headers["if-modified-since"] });
      const feed = served.get(path);
      if (!feed) return void res.writeHead(404).end();
      if ((feed.etag && req.headers["if-none-match"] === feed.etag) || (feed.lastModified && req.headers["if-modified-since"] === feed.lastModified)) return void res.writeHead(304).end();
      res
        .writeHead(feed.status ?? 200, {
          "content-type": "application/rss+xml",
          ...(feed.etag ? { etag: feed.etag } : {}),
          ...(feed.lastModified ? { "last-modified": feed.lastModified } : {}),
          ...(feed.status === 429 ? { "retry-after": "120" } : {}),
        })
        .end(feed.body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(async () => {
    served.clear();
    requests.length = 0;
    world = await openIntegrationWorld({ settings: { EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", EARSHOT_FEED_MAX_BYTES: "4096" } });
  });
  afterEach(() => world.close());

  const project = async () => {
    const projectId = await world.newProject({ enabledSources: ["rss"] });
    const keyword = await world.addKeyword(projectId, "acme", { sources: ["rss"] });
    return { projectId, keyword };
  };
  const editor = (projectId: string) => world.caller({ [projectId]: "editor" });
  const poll = async (projectId: string, cursor?: unknown) => {
    const input: PollInput = {
      projectId,
      keywords: (await world.deps.collections.keywords.find({ projectId, active: true })).map((k) => ({ ...k, id: k._id })),
      cursor,
      now: world.clock.now(),
      signal: new AbortController().signal,
    };
    return world.deps.collectors.rss.poll(input);
  };
  const hoursAgo = (h: number) => new Date(world.clock.now().getTime() - h * 3_600_000).toUTCString();

  it("reads RSS 2.0 and Atom: matching entries of the last day on the first fetch, then every new one, once", async () => {
    const { projectId } = await project();
    served.set("/news.xml", { body: rss([{ id: "n1", title: "Acme opens an office", at: hoursAgo(2) }, { id: "n2", title: "Weather today", at: hoursAgo(1) }, { id: "n0", title: "Acme archive", at: hoursAgo(72) }]) });
    served.set("/releases.atom", { body: atom([{ id: "r1", title: "Acme 3.1 released", at: new Date(world.clock.now().getTime() - 3_600_000).toISOString() }]) });
    await createFeed(world.deps, editor(projectId), { projectId, url: `${base}/news.xml` });
    await createFeed(world.deps, editor(projectId), { projectId, url: `${base}/releases.atom`, name: "Releases" });
    const first = await poll(projectId);
    expect(first.posts.map((p) => [p.source, p.sourceId, p.url, p.title]).sort()).toEqual([
      ["rss", "n1", "https://news.example/n1", "Acme opens an office"],
      ["rss", "r1", "https://releases.example/r1", "Acme 3.1 released"],
    ]);
    expect(first.posts.find((p) => p.sourceId === "r1")!.author).toMatchObject({ handle: "Releases", name: "Releases" });
    // A new entry, and one without a readable date (the fetch time stands in): each arrives once.
    served.set("/news.xml", { body: rss([{ id: "n3", title: "Acme hires", at: "someday" }, { id: "n1", title: "Acme opens an office", at: hoursAgo(2) }]) });
    const second = await poll(projectId, JSON.parse(JSON.stringify(first.cursor)));
    expect(second.posts.map((p) => p.sourceId)).toEqual(["n3"]);
    expect(second.posts[0]!.publishedAt).toBe(world.clock.now().toISOString());
    expect((await poll(projectId, second.cursor)).posts).toEqual([]);
    const [news] = await listFeeds(world.deps, world.caller({ [projectId]: "viewer" }), projectId);
    expect(news).toMatchObject({ name: "127.0.0.1", entriesFound: 2, lastSuccessAt: world.clock.now() });
  });

  it("asks again with the validators it was given, and takes a 304 as nothing new", async () => {
    const { projectId } = await project();
    served.set("/etag.xml", { body: rss([{ id: "e1", title: "Acme one", at: hoursAgo(1) }]), etag: '"v1"' });
    served.set("/modified.xml", { body: rss([{ id: "m1", title: "Acme two", at: hoursAgo(1) }]), lastModified: "Sat, 28 Nov 2026 08:00:00 GMT" });
    await createFeed(world.deps, editor(projectId), { projectId, url: `${base}/etag.xml` });
    await createFeed(world.deps, editor(projectId), { projectId, url: `${base}/modified.xml` });
    const first = await poll(projectId);
    expect(first.posts).toHaveLength(2);
    requests.length = 0;
    const second = await poll(projectId, first.cursor);
    expect(second.posts).toEqual([]);
    expect(requests).toEqual([
      { path: "/etag.xml", ifNoneMatch: '"v1"', ifModifiedSince: undefined },
      { path: "/modified.xml", ifNoneMatch: undefined, ifModifiedSince: "Sat, 28 Nov 2026 08:00:00 GMT" },
    ]);
    expect(second.cursor).toEqual(first.cursor);
  });

  it("refuses a feed over the size bound and a failing one without stopping the others, and names one failing for days in source health", async () => {
    const { projectId } = await project();
    served.set("/huge.xml", { body: rss(Array.from({ length: 200 }, (_, i) => ({ id: `h${i}`, title: `Acme item number ${i} with words`, at: hoursAgo(1) }))) });
    served.set("/gone.xml", { body: "gone", status: 410 });
    served.set("/fine.xml", { body: rss([{ id: "f1", title: "Acme fine", at: hoursAgo(1) }]) });
    for (const path of ["/huge.xml", "/gone.xml", "/fine.xml"]) await createFeed(world.deps, editor(projectId), { projectId, url: `${base}${path}` });
    const out = await poll(projectId);
    expect(out.posts.map((p) => p.sourceId)).toEqual(["f1"]);
    const feeds = await listFeeds(world.deps, editor(projectId), projectId);
    expect(feeds.find((f) => f.url.endsWith("huge.xml"))!.lastError?.message).toMatch(/larger than 4096 bytes/);
    expect(feeds.find((f) => f.url.endsWith("gone.xml"))!.lastError).toMatchObject({ status: 410 });
    const notes = async () => (await getSourceHealth(world.deps, editor(projectId), projectId)).find((h) => h.source === "rss")!.notes;
    expect(await notes()).toEqual([]);
    world.clock.advance(FEED_FAILING_MS);
    await poll(projectId, out.cursor);
    expect((await notes()).join(" ")).toMatch(new RegExp(`Feed "127.0.0.1" \\(${base}/gone.xml\\) has failed since .*answered 410`));
    // The workspace's owner hears of it once per run of failures, whichever replica polls.
    await world.accountEvent("user.created", { userId: "usr_1", workspaceId: "wsp_1", email: "owner@example.com", name: "Owner" });
    expect(await reportFailingFeeds(world.deps, projectId)).toBeUndefined();
    await reportFailingFeeds(world.replica(), projectId);
    expect(world.sent.map((m) => [m.to, m.subject])).toEqual([
      ["owner@example.com", 'Earshot cannot read the feed "127.0.0.1"'],
      ["owner@example.com", 'Earshot cannot read the feed "127.0.0.1"'],
    ]);
    expect(world.sent.map((m) => m.text).join("\n")).toMatch(/huge\.xml[\s\S]*gone\.xml|gone\.xml[\s\S]*huge\.xml/);
    // Each links the project's sources page, where its feeds are listed with their errors.
    for (const m of world.sent) expect(m.text).toContain(`https://earshot.test/app/projects/${projectId}/sources\n`);
  });

  it("backs a feed that answers 429 off until its Retry-After, and reads it again after", async () => {
    const { projectId } = await project();
    served.set("/busy.xml", { body: "slow down", status: 429 });
    await createFeed(world.deps, editor(projectId), { projectId, url: `${base}/busy.xml` });
    const first = await poll(projectId);
    const [feed] = await listFeeds(world.deps, editor(projectId), projectId);
    expect(feed).toMatchObject({ lastError: { status: 429 }, backoffUntil: new Date(world.clock.now().getTime() + 120_000) });
    requests.length = 0;
    world.clock.advance(60_000);
    await poll(projectId, first.cursor);
    expect(requests).toEqual([]);
    served.set("/busy.xml", { body: rss([{ id: "b1", title: "Acme is back", at: hoursAgo(0.5) }]) });
    world.clock.advance(61_000);
    expect((await poll(projectId, first.cursor)).posts.map((p) => p.sourceId)).toEqual(["b1"]);
    expect((await listFeeds(world.deps, editor(projectId), projectId))[0]).not.toHaveProperty("backoffUntil");
  });

  it("refuses a feed on a private address unless the operator allows private networks, naming url", async () => {
    const strict = await openIntegrationWorld({});
    try {
      const projectId = await strict.newProject({ enabledSources: ["rss"] });
      const refused = await refusalOf(createFeed(strict.deps, strict.caller({ [projectId]: "editor" }), { projectId, url: `${base}/fine.xml` }));
      expect(refused).toMatchObject({ code: "validation_failed", errors: [{ path: "url", message: expect.stringMatching(/must be an https URL|must reach a public address/) }] });
      const ftp = await refusalOf(createFeed(strict.deps, strict.caller({ [projectId]: "editor" }), { projectId, url: "ftp://example.com/feed" }));
      expect(ftp).toMatchObject({ code: "validation_failed", errors: [{ path: "url" }] });
    } finally {
      await strict.close();
    }
  });

  it("starts the rss poller with the first feed and stops it with the last; the same URL twice is a conflict; a viewer cannot add one", async () => {
    const { projectId } = await project();
    const poller = async () => (await world.deps.collections.pollers.findById(`${projectId}:rss`))?.enabled ?? false;
    expect(await poller()).toBe(false);
    const feed = await createFeed(world.deps, editor(projectId), { projectId, url: `${base}/a.xml` });
    expect(await poller()).toBe(true);
    expect(await refusalOf(createFeed(world.deps, editor(projectId), { projectId, url: `${base}/a.xml` }))).toMatchObject({ code: "conflict" });
    expect(await refusalOf(createFeed(world.deps, world.caller({ [projectId]: "viewer" }), { projectId, url: `${base}/b.xml` }))).toMatchObject({ code: "forbidden" });
    expect(await refusalOf(deleteFeed(world.deps, world.caller({}), feed._id))).toMatchObject({ code: "not_found" });
    await deleteFeed(world.deps, editor(projectId), feed._id);
    expect(await poller()).toBe(false);
  });
});
