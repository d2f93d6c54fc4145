import { toMentionMessage } from "../../mention-message";
import { type MentionWorld, openMentionWorld } from "../../test-support";
import { ingestPosts } from "../ingest";
import { listMentions, updateMentionStatus } from "../mentions";
import { listPublicMentions } from "../public-dashboard";
import { STORY_WINDOW_MS } from "./assign-stories";
import { withStorySizes } from "./story-sizes";

// Stories through the real ingest path and the reads that present them, on one embedded store per suite.
describe("stories", () => {
  let world: MentionWorld;
  let acme: string;
  let globex: string;
  const article = "https://www.techdaily.example/2026/acme-raises-series-b";
  const text = "Acme raised a series B to build offline sync for its notes app, and the whole team is hiring in Lisbon";
  const hours = (n: number) => new Date(world.clock.now().getTime() - 100 * 3_600_000 + n * 3_600_000).toISOString();

  beforeAll(async () => {
    world = await openMentionWorld();
    acme = await world.newProject();
    globex = await world.newProject("wsp_2");
    await world.addKeyword(acme, "Acme");
    await world.addKeyword(globex, "Acme", { workspaceId: "wsp_2" });
  });
  afterAll(() => world.close());

  const ingest = (posts: unknown[]) => ingestPosts(world.deps, posts);
  const bySource = async (projectId: string, sourceId: string) => (await world.deps.collections.mentions.findOne({ projectId, sourceId }))!;

  it("groups the same link shared on X and Reddit with other tracking, and near-identical text on YouTube and LinkedIn", async () => {
    await ingest([
      world.post(acme, { sourceId: "link-x", text: `Acme is doing great ${article}?utm_source=twitter&utm_medium=social`, publishedAt: hours(0) }),
      world.post(globex, { sourceId: "link-globex", text: `Acme news ${article}`, publishedAt: hours(0) }),
    ]);
    // A later batch: the story is found in the index, not only among the batch's posts.
    await ingest([
      world.post(acme, { source: "reddit", sourceId: "link-reddit", url: "https://www.reddit.com/r/startups/comments/abc/", text: `Thoughts on this? http://techdaily.example/2026/acme-raises-series-b/#comments`, publishedAt: hours(5) }),
      world.post(acme, { source: "youtube", sourceId: "text-yt", url: "https://www.youtube.com/watch?v=a1", text, publishedAt: hours(1) }),
      world.post(acme, { source: "linkedin", sourceId: "text-li", url: "https://www.linkedin.com/posts/p1", text: `RT @acme: ${text} https://t.co/abc #notes #hiring`, publishedAt: hours(2) }),
      world.post(acme, { sourceId: "other", text: "Acme notes app review: search is great but the battery drain is real", publishedAt: hours(2) }),
    ]);
    const [x, reddit, yt, li, other, theirs] = await Promise.all(["link-x", "link-reddit", "text-yt", "text-li", "other"].map((s) => bySource(acme, s)).concat(bySource(globex, "link-globex")));
    expect(reddit!.storyId).toBe(x!.storyId);
    expect(x!.storyLead).toBe(true);
    expect(reddit!.storyLead).toBe(false);
    expect(li!.storyId).toBe(yt!.storyId);
    expect(yt!.storyLead).toBe(true);
    expect(new Set([x!.storyId, yt!.storyId, other!.storyId]).size).toBe(3);
    // Never across projects: the same link in another project is a story of its own.
    expect(theirs!.storyId).not.toBe(x!.storyId);

    const [presented] = await withStorySizes(world.deps, [reddit!]);
    expect(toMentionMessage(presented!).story).toEqual({ id: x!.storyId, size: 2, firstMentionId: x!._id });
    expect(toMentionMessage(theirs!).story).toEqual({ id: theirs!.storyId, size: 1, firstMentionId: theirs!._id });
  });

  it("tells the size of the story a new mention joins in its mention.created event", async () => {
    await ingest([world.post(acme, { sourceId: "link-x-2", text: `Again: ${article}?fbclid=IwAR1`, publishedAt: hours(6) })]);
    const created = (await world.events()).filter((e) => e.type === "mention.created").at(-1)!;
    expect((created.data as { mention: { story: unknown } }).mention.story).toMatchObject({ size: 3 });
  });

  it("tells the story's size in the mention.updated event of a triage change, and stores no size", async () => {
    const reddit = await bySource(acme, "link-reddit");
    await updateMentionStatus(world.deps, world.caller({ [acme]: "editor" }), reddit._id, "done");
    const updated = (await world.events()).filter((e) => e.type === "mention.updated").at(-1)!;
    expect((updated.data as { mention: { story: unknown } }).mention.story).toMatchObject({ size: 3 });
    expect((await bySource(acme, "link-reddit")).storySize).toBeUndefined();
  });

  it("does not join a story more than 72 hours after its first mention", async () => {
    const late = new Date(new Date(hours(0)).getTime() + STORY_WINDOW_MS + 3_600_000).toISOString();
    await ingest([world.post(acme, { sourceId: "link-late", text: `Still reading ${article}`, publishedAt: late })]);
    const [x, lateOne] = await Promise.all([bySource(acme, "link-x"), bySource(acme, "link-late")]);
    expect(lateOne.storyId).not.toBe(x.storyId);
    expect(lateOne.storyLead).toBe(true);
  });

  it("collapse=story lists each story once, by its first mention, with its size", async () => {
    // A mention stored before stories existed has none, and is listed as it is.
    await world.seedMention(acme, { sourceId: "before-stories", publishedAt: new Date(hours(0)) });
    const page = await listMentions(world.deps, world.caller({ [acme]: "viewer" }), { projectId: acme, collapse: "story" });
    const sources = page.items.map((m) => m.sourceId).sort();
    expect(sources).toEqual(["before-stories", "link-late", "link-x", "other", "text-yt"]);
    const x = page.items.find((m) => m.sourceId === "link-x")!;
    expect(x.storySize).toBe(3);
    expect((await listMentions(world.deps, world.caller({ [acme]: "viewer" }), { projectId: acme })).items).toHaveLength(8);
  });

  it("the public dashboard lists a story once, by its first mention, with how many more it holds", async () => {
    await world.projectEvent("project.dashboard_changed", { projectId: acme, workspaceId: "wsp_1", shareId: "shareStories1", served: true });
    const page = await listPublicMentions(world.deps, "shareStories1", { days: 30 });
    const texts = page.items.map((m) => [m.text.slice(0, 20), m.moreInStory]);
    expect(texts).toContainEqual([`Acme is doing great `, 2]);
    expect(page.items.filter((m) => m.text.includes("techdaily"))).toHaveLength(2); // the story, and the one 72 hours later
    expect(page.items.find((m) => m.text.startsWith("Acme raised"))?.moreInStory).toBe(1);
  });

  it("refuses an unknown collapse, naming the field", async () => {
    await expect(listMentions(world.deps, world.caller({ [acme]: "viewer" }), { projectId: acme, collapse: "thread" })).rejects.toMatchObject({ code: "validation_failed", errors: [{ path: "collapse" }] });
  });
});
