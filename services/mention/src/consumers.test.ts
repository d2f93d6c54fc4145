import {
  type CloudEvent,
  type Collection,
  createInProcessBus,
  type Doc,
  type DocumentStore,
  newId,
  PROCESSED_EVENTS_COLLECTION,
  silentLogger,
  type Subscription,
} from "@earshot/platform";
import { POSTS_TOPIC, startMentionConsumers } from "./consumers";
import { type MentionWorld, openMentionWorld } from "./test-support";

// The consumers wired as the service wires them, on the in-process bus and the test world's store, whose
// commits are recorded: how many commits a burst of collected posts costs, and what a crash between the
// commit of a batch and its acknowledgement leaves behind.

const collected = (post: Record<string, unknown>): CloudEvent => ({
  specversion: "1.0",
  id: newId("evt"),
  source: "earshot/integration",
  type: "post.collected",
  subject: String(post.sourceId),
  time: new Date().toISOString(),
  datacontenttype: "application/json",
  data: post,
});

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
    subscriptions = await startMentionConsumers({ bus, store, clock: world.clock, logger: silentLogger() }, world.deps);
  };
  const publishPosts = (posts: Array<Record<string, unknown>>) =>
    bus.publish(posts.map((p) => collected(p)).map((e) => ({ topic: POSTS_TOPIC, key: String((e.data as { projectId: string }).projectId), value: JSON.stringify(e) })));

  it("ingests a burst of collected posts in far fewer commits than posts", async () => {
    await start();
    const projectId = await world.newProject();
    await world.addKeyword(projectId, "acme");
    const before = world.mentionCommits().length;
    await publishPosts(Array.from({ length: 1000 }, (_, i) => world.post(projectId, { text: i % 2 ? "acme news" : "other news" })));
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
    await publishPosts([1, 2, 3].map((i) => world.post(projectId, { sourceId: `crash-${i}`, text: "acme" })));
    expect(failures).toBe(1);
    expect(await world.deps.collections.mentions.count({ projectId })).toBe(3);
    expect((await world.events()).filter((e) => e.type === "mention.created")).toHaveLength(3);
    const counts = Object.fromEntries(
      (world.deps.ingested as unknown as { readings(): Array<{ labels: { outcome: string }; value: number }> }).readings().map((r) => [r.labels.outcome, r.value]),
    );
    expect(counts).toMatchObject({ created: 3, duplicate: 3 });
  });

  it("keeps the replicas from project and keyword events published on the bus", async () => {
    await start();
    const projectId = newId("prj");
    const event = (type: string, source: string, data: Record<string, unknown>) => ({ ...collected(data), type, source });
    await bus.publish([
      { topic: "earshot.project.v1", key: projectId, value: JSON.stringify(event("project.created", "earshot/project", { projectId, workspaceId: "wsp_1", digestTimezone: "Asia/Tokyo" })) },
    ]);
    await bus.publish([
      {
        topic: "earshot.keyword.v1",
        key: projectId,
        value: JSON.stringify(event("keyword.created", "earshot/keyword", { keywordId: "kw_1", projectId, groupId: "kwg_1", value: "acme", sources: ["x"], active: true })),
      },
    ]);
    expect(await world.deps.collections.projects.findById(projectId)).toMatchObject({ status: "active", timezone: "Asia/Tokyo", keywordsRevision: 1 });
    expect(await world.deps.collections.keywords.findById("kw_1")).toMatchObject({ projectId, value: "acme", active: true });
  });
});
