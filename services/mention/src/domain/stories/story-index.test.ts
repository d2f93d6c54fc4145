import type { MentionDeps } from "../deps";
import { type MentionWorld, openMentionWorld } from "../../test-support";
import { ingestPosts } from "../ingest";
import { updateMentionStatus } from "../mentions";
import { STORY_WINDOW_MS } from "./assign-stories";
import { STORY_INDEX_IDLE_MS } from "./story-indexes";

// The story index is each process's memory of the store's mentions: these tests race processes (replicas
// over one embedded store) and batches of one process, and start replicas late, to show that every
// mention is placed against exactly the mentions committed before it, as the store numbered them.
describe("story index across replicas", () => {
  let world: MentionWorld;
  let project: string;
  let n = 0;
  const article = (tag: string) => `https://www.techdaily.example/2026/${tag}`;
  const post = (tag: string, more: Record<string, unknown> = {}) => world.post(project, { sourceId: `${tag}-${(n += 1)}`, text: `Acme news ${article(tag)}?utm_source=x${n}`, ...more });
  const storiesOf = async (tag: string) => {
    const ms = await world.deps.collections.mentions.find({ projectId: project, text: { $regex: new RegExp(tag) } });
    return { ids: new Set(ms.map((m) => m.storyId)), leads: ms.filter((m) => m.storyLead).length, count: ms.length };
  };

  beforeAll(async () => {
    world = await openMentionWorld();
    project = await world.newProject();
    await world.addKeyword(project, "Acme");
  });
  afterAll(() => world.close());

  it("a replica whose index is behind reads what the other committed and joins its story", async () => {
    const other = world.replica();
    // Its index is built now, before the first replica's commit.
    await ingestPosts(other, [post("warm-up")]);
    await ingestPosts(world.deps, [post("behind")]);
    const before = other.stories.replayed;
    expect((await ingestPosts(other, [post("behind")])).created).toBe(1);
    expect(await storiesOf("behind")).toEqual({ ids: expect.any(Set), leads: 1, count: 2 });
    expect((await storiesOf("behind")).ids.size).toBe(1);
    expect(other.stories.replayed).toBeGreaterThan(before);
  });

  it("batches of one process racing for the same story make one story", async () => {
    await Promise.all([1, 2, 3].map(() => ingestPosts(world.deps, [post("race-local")])));
    expect(await storiesOf("race-local")).toMatchObject({ leads: 1, count: 3 });
    expect((await storiesOf("race-local")).ids.size).toBe(1);
  });

  it("replicas racing for the same story make one story", async () => {
    const replicas = [world.deps, world.replica(), world.replica()];
    await Promise.all(replicas.map((deps) => ingestPosts(deps, [post("race-replicas")])));
    expect(await storiesOf("race-replicas")).toMatchObject({ leads: 1, count: 3 });
    expect((await storiesOf("race-replicas")).ids.size).toBe(1);
  });

  it("a triage change moving the change sequence in between costs a retry, not a wrong story", async () => {
    await ingestPosts(world.deps, [post("triaged")]);
    const [first] = await world.deps.collections.mentions.find({ projectId: project, text: { $regex: /triaged/ } });
    await updateMentionStatus(world.replica(), world.caller({ [project]: "editor" }), first!._id, "done");
    await ingestPosts(world.deps, [post("triaged")]);
    expect((await storiesOf("triaged")).ids.size).toBe(1);
  });

  it("drops a project's index after an hour unused, and builds the same one again at its next post", async () => {
    const quiet = await world.newProject();
    await world.addKeyword(quiet, "Acme");
    const replica = world.replica();
    await ingestPosts(replica, [post("quiet"), world.post(quiet, { sourceId: `quiet-${(n += 1)}`, text: `Acme news ${article("quiet")}` })]);
    const held = [...(await replica.stories.indexFor(replica, quiet)).entries()].sort();
    const size = replica.stories.size;
    expect(size).toBeGreaterThanOrEqual(2);
    world.clock.advance(STORY_INDEX_IDLE_MS + 60_000);
    // The next post (of the other project) sweeps: the quiet project's index goes; only the poster's is held.
    await ingestPosts(replica, [post("busy")]);
    expect(replica.stories.size).toBe(1);
    const before = replica.stories.replayed;
    expect([...(await replica.stories.indexFor(replica, quiet)).entries()].sort()).toEqual(held);
    expect(replica.stories.replayed).toBeGreaterThan(before);
    // A copy posted now still joins the quiet project's story.
    await ingestPosts(replica, [world.post(quiet, { sourceId: `quiet-${(n += 1)}`, text: `Acme news ${article("quiet")}?utm_source=again` })]);
    const ms = await world.deps.collections.mentions.find({ projectId: quiet });
    expect(new Set(ms.map((m) => m.storyId)).size).toBe(1);
  });

  it("a replica started later replays the same index from the mentions, and places as the running one would", async () => {
    const other = await world.newProject();
    await world.addKeyword(other, "Acme");
    // Shared links, retweeted texts and posts of their own, published over ten days (so windows close).
    const words = "release update users team price launch review phone service support market report growth plan beta fix".split(" ");
    const sentence = (seed: number) => Array.from({ length: 10 }, (_, k) => words[(seed * 7 + k * (seed % 5 + 1)) % words.length]).join(" ");
    const generated = Array.from({ length: 120 }, (_, i) => {
      const story = i % 24;
      const text = [`Acme ${article(`gen-${story}`)}?ref=${i}`, `RT @fan${i}: Acme ${sentence(story)}`, `Acme ${sentence(1000 + i)} ${i}`][i % 3];
      const publishedAt = new Date(world.clock.now().getTime() - ((i * 37) % 240) * 3_600_000).toISOString();
      return world.post(other, { sourceId: `gen-${i}`, text, publishedAt });
    });
    for (let i = 0; i < generated.length - 40; i += 25) await ingestPosts(world.deps, generated.slice(i, i + 25));
    const late = world.replica();
    const running = [...(await world.deps.stories.indexFor(world.deps, other)).entries()].sort();
    const replayed = [...(await late.stories.indexFor(late, other)).entries()].sort();
    expect(running.length).toBeGreaterThan(40);
    expect(replayed).toEqual(running);
    // The rest ingested by either process lands in the same stories as the running process alone would place them.
    const rest = generated.slice(generated.length - 40);
    const placeAll = async (deps: MentionDeps) => {
      for (let i = 0; i < rest.length; i += 10) await ingestPosts(deps, rest.slice(i, i + 10));
    };
    await placeAll(late);
    const lateIndex = [...(await late.stories.indexFor(late, other)).entries()].sort();
    await world.deps.stories.catchUp(world.deps, other, (await world.deps.collections.sequences.findById(other))!.seq);
    expect([...(await world.deps.stories.indexFor(world.deps, other)).entries()].sort()).toEqual(lateIndex);
  });

  it("a late replica does not join a story whose claims lapsed: past the window after its ingest", async () => {
    await ingestPosts(world.deps, [post("lapsed")]);
    world.clock.advance(STORY_WINDOW_MS + 60_000);
    const late = world.replica();
    await ingestPosts(late, [post("lapsed")]);
    expect((await storiesOf("lapsed")).ids.size).toBe(2);
  });
});
