import { MENTION_EVENTS, type MentionEvent } from "@earshot/contracts/events";
import { SOURCE_WORDS } from "@earshot/platform";
import { type BlueskySimulator, type RunningSimulators, startSimulators } from "@earshot/simulators";
import { type Harness, startHarness } from "./harness";
import { ACME, authorizeLinkedin, selectPage } from "./linkedin-flow";
import { busEvents } from "./membership-events";
import { createProject, listAllMentions } from "./world";

// The loop the integration service exists for, over HTTP against a running all-in-one with every platform
// simulated (as `make run` does without credentials): a project and a keyword are enough for mentions from
// X, Reddit and YouTube to be listed within a poll interval or two, and LinkedIn's once the owner has
// connected a Page. The simulators generate a post per searched term every second; polls run every second.

let sims: RunningSimulators;
let h: Harness;

beforeAll(async () => {
  sims = await startSimulators({ generate: true, generateEveryMs: 1_000, backfill: 2 });
  h = await startHarness({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "1", EARSHOT_SIMULATED_SOURCES: "x,reddit,youtube,linkedin" });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await sims?.close();
});

const SOURCES = ["x", "reddit", "youtube", "linkedin"] as const;

it("lists mentions of a new keyword from all four simulated sources, and says so in source health", async () => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner);
  const mentionOf = (source: string) => (e: MentionEvent) => e.type === "mention.created" && e.data.projectId === projectId && SOURCE_WORDS.word(e.data.mention?.source ?? 0) === source;
  const stored = Promise.all(SOURCES.map((source) => busEvents(h, MENTION_EVENTS, 1, mentionOf(source))));

  const keyword = await h.call("create_keyword", { projectId, value: "Quillfeather", sources: [...SOURCES], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false }, owner.key);
  expect(keyword.status).toBe(201);
  expect((await authorizeLinkedin(h, owner, projectId)).status).toBe(200);
  expect((await selectPage(h, owner, projectId, ACME)).status).toBe(200);
  await stored;

  const mentions = await listAllMentions(h, owner, projectId);
  expect(new Set(mentions.map((m) => m.source))).toEqual(new Set(SOURCES));
  for (const m of mentions) expect(`${m.title ?? ""} ${m.text}`.toLowerCase()).toContain("quillfeather");
  const urls = Object.fromEntries(SOURCES.map((s) => [s, mentions.find((m) => m.source === s)?.url]));
  expect(urls.x).toMatch(/^https:\/\/x\.com\/[^/]+\/status\/\d+$/);
  expect(urls.reddit).toMatch(/^https:\/\/www\.reddit\.com\/r\/[^/]+\/comments\//);
  expect(urls.youtube).toMatch(/^https:\/\/www\.youtube\.com\/watch\?v=/);
  expect(urls.linkedin).toMatch(/^https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:/);

  const health = await h.call("get_source_health", { projectId }, owner.key);
  expect(health.status).toBe(200);
  const sources = (health.body.data as { sources: Array<{ source: string; state: string; simulated: boolean; lastSuccessAt: string | null; postsLast24h: number }> }).sources;
  // The simulated four come first; the others are listed too (idle: the keyword does not name them).
  expect(sources.map((s) => s.source).slice(0, SOURCES.length)).toEqual([...SOURCES]);
  for (const s of sources.slice(0, SOURCES.length)) {
    expect({ source: s.source, simulated: s.simulated, succeeded: s.lastSuccessAt !== null, found: s.postsLast24h > 0 }).toEqual({ source: s.source, simulated: true, succeeded: true, found: true });
  }
}, 60_000);

it("finds the last day's posts of a keyword added after the pollers ran, and says when it searched in source health", async () => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner);
  const createKeyword = (value: string) => h.call("create_keyword", { projectId, value, sources: ["x"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false }, owner.key);
  const polled = busEvents(h, MENTION_EVENTS, 1, (e) => e.type === "mention.created" && e.data.projectId === projectId);
  expect((await createKeyword("Bramblewick")).status).toBe(201);
  await polled;

  // A poll looks back one interval for a query it never asked: only the new keyword's first search,
  // looking back 24 h, can find this post.
  const yesterday = sims.world.publish("x", { text: "Thistlemoor was all anyone talked about", createdAtMs: Date.now() - 20 * 3_600_000 });
  const found = busEvents(h, MENTION_EVENTS, 1, (e) => e.type === "mention.created" && e.data.projectId === projectId && e.data.mention?.sourceId === yesterday.key.toString());
  expect((await createKeyword("Thistlemoor")).status).toBe(201);
  await found;

  const health = await h.call("get_source_health", { projectId }, owner.key);
  const sources = (health.body.data as { sources: Array<{ source: string; firstSearchAt: string | null }> }).sources;
  expect(sources.find((s) => s.source === "x")?.firstSearchAt).toEqual(expect.any(String));
  expect(sources.find((s) => s.source === "linkedin")?.firstSearchAt).toBeNull();
}, 60_000);

it("lists mentions of a keyword from simulated Hacker News and GitHub, as EARSHOT_SIMULATORS=all serves them", async () => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner);
  const FREE = ["hackernews", "github"] as const;
  const mentionOf = (source: string) => (e: MentionEvent) => e.type === "mention.created" && e.data.projectId === projectId && SOURCE_WORDS.word(e.data.mention?.source ?? 0) === source;
  const stored = Promise.all(FREE.map((source) => busEvents(h, MENTION_EVENTS, 1, mentionOf(source))));
  const keyword = await h.call("create_keyword", { projectId, value: "Larkspurrow", sources: [...FREE], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false }, owner.key);
  expect(keyword.status).toBe(201);
  await stored;

  const mentions = await listAllMentions(h, owner, projectId);
  expect(new Set(mentions.map((m) => m.source))).toEqual(new Set(FREE));
  for (const m of mentions) expect(`${m.title ?? ""} ${m.text}`.toLowerCase()).toContain("larkspurrow");
  expect(mentions.find((m) => m.source === "hackernews")?.url).toMatch(/^https:\/\/news\.ycombinator\.com\/item\?id=\d+$/);
  expect(mentions.find((m) => m.source === "github")?.url).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+\/(issues|pull)\/\d+$/);
  // Every request reached the simulators, none the real hosts (the settings point there alone).
  expect(sims.world.requestCount("hackernews")).toBeGreaterThan(0);
  expect(sims.world.requestCount("github")).toBeGreaterThan(0);
}, 60_000);

it("lists a Bluesky post from the live stream as a mention, with its author's handle, once a keyword listens there", async () => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner);
  const bluesky = sims.simulators.find((s) => s.platform === "bluesky") as BlueskySimulator;
  const subscribed = bluesky.subscribed(1);
  const stored = busEvents(h, MENTION_EVENTS, 1, (e: MentionEvent) => e.type === "mention.created" && e.data.projectId === projectId);
  const keyword = await h.call("create_keyword", { projectId, value: "Foxglovian", sources: ["bluesky"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false }, owner.key);
  expect(keyword.status).toBe(201);
  // The stream opens once a keyword listens on Bluesky; it reads from then on, as the firehose does.
  await subscribed;
  sims.world.publish("bluesky", { text: "Foxglovian is the best thing I tried this week", author: { handle: "petra", name: "Petra K" } });
  await stored;
  const [mention] = await listAllMentions(h, owner, projectId);
  expect(mention).toMatchObject({ source: "bluesky", text: "Foxglovian is the best thing I tried this week", author: { handle: "petra.bsky.social", name: "Petra K" } });
  expect(mention!.url).toMatch(/^https:\/\/bsky\.app\/profile\/petra\.bsky\.social\/post\/3k[0-9a-v]+$/);
}, 60_000);
