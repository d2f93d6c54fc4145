import { presentMentionWithHistory } from "@earshot/contracts/resources";
import { MENTION_TOPIC, type MentionCreated } from "../events";
import { toMentionMessage } from "../mention-message";
import type { MentionDoc } from "../store";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import type { MentionDeps } from "./deps";
import { ingestPosts, MAX_POSTS_PER_BATCH } from "./ingest";

describe("ingesting posts", () => {
  let world: MentionWorld;
  let acme: string;
  let globex: string;
  beforeEach(async () => {
    world = await openMentionWorld();
    acme = await world.newProject();
    globex = await world.newProject("wsp_2");
  });
  afterEach(() => world.close());

  const ingest = (posts: unknown[], deps: MentionDeps = world.deps) => ingestPosts(deps, posts);
  const mentionsOf = (projectId: string) => world.deps.collections.mentions.find({ projectId }, { sort: { _id: 1 } });

  it("makes one mention per project a post matches, with the keywords, groups and places that matched", async () => {
    await world.keywordEvent("keyword_group.created", { groupId: "kwg_competitors", projectId: acme, workspaceId: "wsp_1", name: "Competitors", order: 1, isDefault: true });
    const launch = await world.addKeyword(acme, "Acme launch");
    const rocket = await world.addKeyword(acme, "rocket", { groupId: "kwg_competitors", aliases: ["rockets"] });
    const other = await world.addKeyword(globex, "rocket", { workspaceId: "wsp_2" });
    const text = "The Acme launch of the new rocket was amazing";
    const result = await ingest([{ ...world.post(acme, { sourceId: "t1", text, title: "Rockets!" }) }, world.post(globex, { sourceId: "t1", text })]);
    expect(result).toEqual({ created: 2, duplicates: 0, unmatched: 0, skipped: 0, refused: [] });

    const [mine] = await mentionsOf(acme);
    expect(mine).toMatchObject({
      projectId: acme,
      workspaceId: "wsp_1",
      source: "x",
      sourceId: "t1",
      postKey: `${acme}|x|t1`,
      status: "open",
      authorKey: "someone",
      sentiment: { label: "positive", method: "lexicon" },
      matchedAt: world.clock.now(),
      history: [],
    });
    expect(new Set(mine!.keywordIds)).toEqual(new Set([launch.keywordId, rocket.keywordId]));
    expect(new Set(mine!.groupIds)).toEqual(new Set([launch.groupId, "kwg_competitors"]));
    expect(mine!.matches).toEqual([
      { keywordId: rocket.keywordId, term: "rockets", field: "title", start: 0, end: 7 },
      { keywordId: launch.keywordId, term: "Acme launch", field: "text", start: 4, end: 15 },
      { keywordId: rocket.keywordId, term: "rocket", field: "text", start: 27, end: 33 },
    ]);
    expect(mine!.words).toEqual(expect.arrayContaining(["rockets", "acme", "launch", "amazing"]));

    const [theirs] = await mentionsOf(globex);
    expect(theirs).toMatchObject({ workspaceId: "wsp_2", keywordIds: [other.keywordId], postKey: `${globex}|x|t1` });

    const created = (await world.events()).filter((e) => e.type === "mention.created");
    expect(created.map((e) => [e.topic, e.key, e.subject])).toEqual(
      expect.arrayContaining([
        [MENTION_TOPIC, acme, mine!._id],
        [MENTION_TOPIC, globex, theirs!._id],
      ]),
    );
    // The mention as get_mention presents it, with the names the keyword events gave beside it (the brand
    // group's keyword_group.created never reached this world: its name is empty, not guessed).
    const data = created.find((e) => e.key === acme)?.data as MentionCreated;
    expect(data).toEqual({
      projectId: acme,
      workspaceId: "wsp_1",
      keywords: expect.arrayContaining([
        { keywordId: launch.keywordId, value: "Acme launch", groupId: launch.groupId },
        { keywordId: rocket.keywordId, value: "rocket", groupId: "kwg_competitors" },
      ]),
      groups: expect.arrayContaining([
        { groupId: launch.groupId, name: "" },
        { groupId: "kwg_competitors", name: "Competitors" },
      ]),
      mention: toMentionMessage(mine!),
    });
    expect(presentMentionWithHistory(data.mention)).toMatchObject({
      id: mine!._id,
      title: "Rockets!",
      author: { id: "u1", handle: "@Someone", name: "Someone", followers: 10 },
      metrics: { likes: 1, replies: 0, shares: 0, views: 10 },
      categoryId: null,
      updatedAt: mine!.updatedAt.toISOString(),
      history: [],
    });
  });

  it("counts a post stored before, or twice in one batch, as a duplicate and makes no second mention or event", async () => {
    await world.addKeyword(acme, "acme");
    const post = world.post(acme, { sourceId: "same", text: "acme again" });
    expect((await ingest([post, { ...post, text: "acme, collected a second time" }])).created).toBe(1);
    // Collected again later (a new delivery, other metrics): still the same post of the project.
    const again = await ingest([{ ...post, metrics: { likes: 50, replies: 1, shares: 0, views: 900 } }]);
    expect(again).toMatchObject({ created: 0, duplicates: 1 });
    expect(await mentionsOf(acme)).toHaveLength(1);
    expect((await world.events()).filter((e) => e.type === "mention.created")).toHaveLength(1);
    // The same source id on another source is another post.
    expect((await ingest([{ ...post, source: "reddit", url: "https://www.reddit.com/r/x/comments/same/" }])).created).toBe(1);
  });

  it("counts a post that matches no active keyword as unmatched and stores nothing", async () => {
    await world.addKeyword(acme, "acme", { excludedTerms: ["acme corp"] });
    const result = await ingest([world.post(acme, { text: "nothing about it" }), world.post(acme, { text: "Acme Corp is hiring" })]);
    expect(result).toMatchObject({ created: 0, unmatched: 2 });
    expect(await mentionsOf(acme)).toEqual([]);
  });

  it("stops matching a keyword once its deactivation is applied, and keeps its mentions", async () => {
    const k = await world.addKeyword(acme, "acme");
    expect((await ingest([world.post(acme, { text: "acme one" })])).created).toBe(1);
    await world.keywordEvent("keyword.deactivated", { ...k, active: false });
    expect(await ingest([world.post(acme, { text: "acme two" })])).toMatchObject({ created: 0, unmatched: 1 });
    expect(await mentionsOf(acme)).toHaveLength(1);
    expect(await world.deps.collections.keywords.findById(k.keywordId)).toMatchObject({ active: false, value: "acme" });
    // Reactivated (keyword.updated with active true): it matches again.
    await world.keywordEvent("keyword.updated", { ...k, active: true, fields: ["active"] });
    expect((await ingest([world.post(acme, { text: "acme three" })])).created).toBe(1);
  });

  it("applies keyword changes written by this process without reading the keywords again, and reloads changes another replica wrote", async () => {
    const k = await world.addKeyword(acme, "acme");
    await ingest([world.post(acme, { text: "acme" })]);
    expect(world.deps.matchers.loads).toBe(1);
    await world.keywordEvent("keyword.updated", { ...k, value: "globex", fields: ["value"] });
    expect((await ingest([world.post(acme, { text: "globex" })])).created).toBe(1);
    expect(world.deps.matchers.loads).toBe(1);

    // Another process consumed this change (replicas share the consumer group): this one notices the
    // project's revision moved on and reloads once.
    const other = world.replica();
    await world.keywordEvent("keyword.updated", { ...k, value: "initech", fields: ["value"] }, other);
    expect(await ingest([world.post(acme, { text: "globex" }), world.post(acme, { text: "initech" })])).toMatchObject({ created: 1, unmatched: 1 });
    expect(world.deps.matchers.loads).toBe(2);
    await ingest([world.post(acme, { text: "initech again" })]);
    expect(world.deps.matchers.loads).toBe(2);
  });

  it("skips posts of paused, archived and unknown projects, and matches a resumed project's posts again", async () => {
    await world.addKeyword(acme, "acme");
    const status = (s: string) => world.projectEvent("project.updated", { projectId: acme, workspaceId: "wsp_1", fields: ["status"], status: s });
    await status("paused");
    expect(await ingest([world.post(acme, { text: "acme" }), world.post("prj_unknown", { text: "acme" })])).toMatchObject({ created: 0, skipped: 2 });
    await status("active");
    expect((await ingest([world.post(acme, { text: "acme" })])).created).toBe(1);
    await world.projectEvent("project.archived", { projectId: acme, workspaceId: "wsp_1" });
    // A replayed older event does not bring an archived project back.
    await status("active");
    expect(await ingest([world.post(acme, { text: "acme" })])).toMatchObject({ created: 0, skipped: 1 });
  });

  it("refuses posts that are not valid, alone and naming the field, and a batch over the limit naming posts", async () => {
    await world.addKeyword(acme, "acme");
    const result = await ingest([
      world.post(acme, { text: "acme fine" }),
      world.post(acme, { source: "myspace" }),
      world.post(acme, { author: { id: "u1", handle: "", name: "x" } }),
      world.post(acme, { publishedAt: "yesterday" }),
      world.post(acme, { url: "javascript:alert(1)" }),
      "not an object",
    ]);
    expect(result.created).toBe(1);
    expect(result.refused).toEqual([
      { index: 1, problems: [{ path: "source", message: "must be one of x, reddit, youtube, linkedin, hackernews, bluesky, rss, github" }] },
      { index: 2, problems: [{ path: "author.handle", message: "is required" }] },
      { index: 3, problems: [{ path: "publishedAt", message: expect.stringContaining("ISO 8601") }] },
      { index: 4, problems: [{ path: "url", message: "must be an http(s) URL" }] },
      { index: 5, problems: [{ path: "post", message: "must be an object" }] },
    ]);
    const tooMany = await refusalOf(ingest(Array.from({ length: MAX_POSTS_PER_BATCH + 1 }, () => world.post(acme))));
    expect(tooMany).toMatchObject({ code: "validation_failed", errors: [{ path: "posts", message: "must hold at most 1000 posts" }] });
  });

  it("names every bad field of a refused post at once, a field left out as required", async () => {
    const { sourceId: _sourceId, publishedAt: _publishedAt, ...rest } = world.post(acme);
    const result = await ingest([{ ...rest, author: "ana", url: "ftp://example.com/1", metrics: { likes: -1, views: 1.5 } }]);
    expect(result.refused).toEqual([
      {
        index: 0,
        problems: [
          { path: "sourceId", message: "is required" },
          { path: "url", message: "must be an http(s) URL" },
          { path: "author", message: "must be an object" },
          { path: "publishedAt", message: "is required" },
          { path: "metrics.likes", message: "must not be negative" },
          { path: "metrics.views", message: "must be a whole number" },
        ],
      },
    ]);
  });

  it("stores a batch of mentions in one commit with their events", async () => {
    await world.addKeyword(acme, "acme");
    await world.addKeyword(globex, "globex");
    const posts = Array.from({ length: 300 }, (_, i) => (i % 3 === 2 ? world.post(acme, { text: "nothing" }) : world.post(i % 3 ? acme : globex, { text: "acme and globex" })));
    const before = world.mentionCommits().length;
    expect(await ingest(posts)).toMatchObject({ created: 200, unmatched: 100 });
    const commits = world.mentionCommits().slice(before);
    expect(commits).toHaveLength(1);
    expect(commits[0]!.filter((w) => w.collection === "mentions")).toHaveLength(200);
    expect(commits[0]!.filter((w) => w.collection === "outbox")).toHaveLength(200);
  });

  it("counts the posts a racing replica stored between the read and the commit as duplicates, storing the rest", async () => {
    await world.addKeyword(acme, "acme");
    const posts = Array.from({ length: 5 }, () => world.post(acme, { text: "acme" }));
    await ingest(posts.slice(0, 2));
    // This replica's read of the post keys happened before the other one committed.
    const racing = world.replica();
    const mentions = Object.assign(Object.create(world.deps.collections.mentions) as typeof world.deps.collections.mentions, {
      find: async () => [] as MentionDoc[],
    });
    const late = { ...racing, collections: { ...racing.collections, mentions } };
    expect(await ingest(posts, late)).toMatchObject({ created: 3, duplicates: 2 });
    expect(await mentionsOf(acme)).toHaveLength(5);
    expect((await world.events()).filter((e) => e.type === "mention.created")).toHaveLength(5);
  });

  it("counts every post by outcome", async () => {
    await world.addKeyword(acme, "acme");
    const post = world.post(acme, { text: "acme" });
    await ingest([post, post, world.post(acme), world.post("prj_unknown"), { nope: true }]);
    const counts = Object.fromEntries(
      (world.deps.ingested as unknown as { readings(): Array<{ labels: { outcome: string }; value: number }> }).readings().map((r) => [r.labels.outcome, r.value]),
    );
    expect(counts).toEqual({ created: 1, duplicate: 1, unmatched: 1, skipped: 1, refused: 1 });
  });
});
