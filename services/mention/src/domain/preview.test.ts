import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { ingestPosts } from "./ingest";
import { previewKeyword, type PreviewDefinition } from "./preview";

// The preview in the service: the filters that read more than a post's text (subreddit, YouTube channel,
// followers, language, authors) judge a stored mention as ingestion judged its post, the scan bound, and
// who may preview.

const CHANNEL = "UCabcdefghijklmnopqrstuv";

describe("previewing a keyword over stored mentions", () => {
  let world: MentionWorld;
  let project: string;
  beforeEach(async () => {
    world = await openMentionWorld();
    project = await world.newProject();
  });
  afterEach(() => world.close());

  const minutesAgo = (n: number) => new Date(world.clock.now().getTime() - n * 60_000).toISOString();
  const posts = (projectId: string) => [
    world.post(projectId, { sourceId: "r1", source: "reddit", subreddit: "typescript", url: "https://reddit.com/r/typescript/comments/1", text: "Zorblax is neat", author: { id: "u1", handle: "fan", name: "Fan", followers: 500 }, publishedAt: minutesAgo(1) }),
    world.post(projectId, { sourceId: "r2", source: "reddit", url: "https://reddit.com/r/rust/comments/2", text: "Zorblax in rust", publishedAt: minutesAgo(2) }),
    world.post(projectId, { sourceId: "y1", source: "youtube", channelId: CHANNEL, url: "https://youtube.com/watch?v=1", text: "Zorblax video", author: { id: "u2", handle: "chan", name: "Chan", followers: 500 }, publishedAt: minutesAgo(3) }),
    world.post(projectId, { sourceId: "y2", source: "youtube", channelHandle: "@otherchannel", url: "https://youtube.com/watch?v=2", text: "Zorblax elsewhere", publishedAt: minutesAgo(4) }),
    world.post(projectId, { sourceId: "x1", text: "Zorblax from a small account", author: { id: "u9", handle: "tiny", name: "Tiny", followers: 3 }, publishedAt: minutesAgo(5) }),
    world.post(projectId, { sourceId: "x2", text: "Zorblax und mehr", lang: "de", author: { id: "u8", handle: "big", name: "Big", followers: 5000 }, publishedAt: minutesAgo(6) }),
    world.post(projectId, { sourceId: "x3", text: "ZORBLAX loud", author: { id: "u7", handle: "big2", name: "Big", followers: 5000 }, publishedAt: minutesAgo(7) }),
  ];

  const narrow: PreviewDefinition = {
    value: "Zorblax",
    aliases: [],
    excludedTerms: [],
    caseSensitive: false,
    sources: ["x", "reddit", "youtube"],
    filters: { subreddits: ["typescript"], youtubeChannels: [CHANNEL], minFollowers: 100, languages: ["en"] },
  };

  it("judges subreddit, channel, followers and language as ingesting the same posts with the saved keyword does", async () => {
    await world.addKeyword(project, "Zorblax", { sources: ["x", "reddit", "youtube", "linkedin"] });
    expect((await ingestPosts(world.deps, posts(project))).created).toBe(7);
    const preview = await previewKeyword(world.deps, world.caller({ [project]: "viewer" }), { projectId: project, definition: narrow });

    const fresh = await world.newProject();
    await world.addKeyword(fresh, "Zorblax", { sources: narrow.sources, filters: narrow.filters });
    await ingestPosts(world.deps, posts(fresh));
    const saved = await world.deps.collections.mentions.find({ projectId: fresh }, { sort: { publishedAt: -1 } });

    expect(preview.wouldMatch.mentions.map((h) => h.mention.sourceId)).toEqual(["r1", "y1", "x3"]);
    expect(saved.map((m) => m.sourceId)).toEqual(["r1", "y1", "x3"]);
    expect(preview.wouldMatch.mentions.map((h) => h.matches.map(({ term, field, start, end }) => ({ term, field, start, end })))).toEqual(
      saved.map((m) => m.matches.map(({ term, field, start, end }) => ({ term, field, start, end }))),
    );
    expect(preview).toMatchObject({ scanned: 7, truncated: false, alreadyMatching: 0 });
    expect(preview.wouldNoLongerMatch).toBeUndefined();
  });

  it("reads at most maxScanned mentions, newest first, and says where it stopped", async () => {
    await world.addKeyword(project, "Zorblax", { sources: ["x", "reddit", "youtube", "linkedin"] });
    await ingestPosts(world.deps, posts(project));
    const preview = await previewKeyword(world.deps, world.caller({ [project]: "viewer" }), { projectId: project, definition: { ...narrow, filters: {} }, maxScanned: 3 });
    expect(preview).toMatchObject({ scanned: 3, truncated: true, scannedFrom: new Date(minutesAgo(3)) });
    expect(preview.wouldMatch.count).toBe(3);
  });

  it("lets any member preview and answers not_found to anyone else", async () => {
    const definition = narrow;
    await expect(previewKeyword(world.deps, world.caller({ [project]: "viewer" }), { projectId: project, definition })).resolves.toMatchObject({ scanned: 0 });
    expect(await refusalOf(previewKeyword(world.deps, world.caller({}), { projectId: project, definition }))).toMatchObject({ code: "not_found" });
  });
});
