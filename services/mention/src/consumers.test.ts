import { INTEGRATION_EVENTS, KEYWORD_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import {
  type Collection,
  createInProcessBus,
  type Doc,
  type DocumentStore,
  newId,
  PROCESSED_EVENTS_COLLECTION,
  publishedEventOf,
  silentLogger,
  subscribeAll,
  type Subscription,
} from "@earshot/platform";
import { publishedEvent } from "@earshot/platform/testing";
import { MENTION_CONSUMERS } from "./consumers";
import { type MentionWorld, openMentionWorld } from "./test-support";

// The consumers wired as the service wires them, on the in-process bus and the test world's store, whose
// commits are recorded: how many commits a burst of collected posts costs, and what a crash between the
// commit of a batch and its acknowledgement leaves behind.

describe("mention consumers", () => {
  let world: MentionWorld;
  let subscriptions: Subscription[];
  const bus = createInProcessBus({ wait: async () => undefined });
  beforeEach(async () => {
    world = await openMentionWorld();
    subscriptions = [];
  });
  afterEach(async () => {
    await Promise.all(subscriptions.map((s) => s.stop()));
    await world.close();
  });
  afterAll(() => bus.close());

  const start = async (store: DocumentStore = world.store) => {
    subscriptions = await subscribeAll(MENTION_CONSUMERS, { bus, store, clock: world.clock, logger: silentLogger() }, world.deps);
  };
  /** Publishes `post.collected` for each post as the integration service stages it. */
  const publishPosts = (projectId: string, posts: Array<Record<string, unknown>>) =>
    bus.publish(posts.map((p) => publishedEventOf(INTEGRATION_EVENTS, world.collectedPost(projectId, p), world.clock)));

  it("ingests a burst of collected posts in far fewer commits than posts", async () => {
    await start();
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme");
    const before = world.mentionCommits().length;
    await publishPosts(projectId, Array.from({ length: 1000 }, (_, i) => ({ text: i % 2 ? "acme news" : "other news" })));
    expect(await world.deps.collections.mentions.count({ projectId })).toBe(500);
    const commits = world.mentionCommits().length - before;
    expect(commits).toBeGreaterThanOrEqual(3);
    expect(commits).toBeLessThanOrEqual(10);
  });

  it("makes no second mention when the process died after the commit and before the batch was recorded as handled", async () => {
    // The record of handled events fails once, right after the mentions were committed: the batch is
    // neither acknowledged nor marked, so the bus hands it over again.
    let failures = 0;
    const dyingStore: DocumentStore = {
      ...world.store,
      collection: <T extends Doc>(name: string): Collection<T> => {
        const real = world.store.collection<T>(name);
        if (name !== PROCESSED_EVENTS_COLLECTION) return real;
        return Object.assign(Object.create(real) as Collection<T>, {
          insertMany: async (docs: T[]) => {
            if (failures === 0) {
              failures += 1;
              throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
            }
            return real.insertMany(docs);
          },
        });
      },
    };
    await start(dyingStore);
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme");
    await publishPosts(projectId, [1, 2, 3].map((i) => ({ sourceId: `crash-${i}`, text: "acme" })));
    expect(failures).toBe(1);
    expect(await world.deps.collections.mentions.count({ projectId })).toBe(3);
    expect((await world.events()).filter((e) => e.type === "mention.created")).toHaveLength(3);
    const counts = Object.fromEntries(
      (world.deps.ingested as unknown as { readings(): Array<{ labels: { outcome: string }; value: number }> }).readings().map((r) => [r.labels.outcome, r.value]),
    );
    expect(counts).toMatchObject({ created: 3, duplicate: 3 });
  });

  it("keeps the copies of projects and keywords from their events published on the bus", async () => {
    await start();
    const projectId = newId("prj");
    await bus.publish([publishedEvent(PROJECT_EVENTS, "project.created", { projectId, workspaceId: "wsp_1", digestTimezone: "Asia/Tokyo" })]);
    await bus.publish([publishedEvent(KEYWORD_EVENTS, "keyword.created", { keywordId: "kw_1", projectId, groupId: "kwg_1", value: "acme", sources: ["x"], active: true })]);
    expect(await world.deps.collections.projects.findById(projectId)).toMatchObject({ status: "active", timezone: "Asia/Tokyo", keywordsRevision: 1 });
    expect(await world.deps.collections.keywords.findById("kw_1")).toMatchObject({ projectId, value: "acme", active: true });
  });
});
