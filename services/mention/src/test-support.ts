import { INTEGRATION_EVENTS, KEYWORD_EVENTS, type PostCollected, PROJECT_EVENTS } from "@earshot/contracts/events";
import { integrationV1Events } from "@earshot/proto";
import { stageEvent } from "@earshot/platform/core";
import { receivedEvent, testProjectCaller } from "@earshot/platform/testing";
import {
  type CloudEvent,
  type DocumentStore,
  ManualClock,
  newId,
  openEmbeddedStore,
  OUTBOX_COLLECTION,
  Outbox,
  type OutboxRecord,
  silentLogger,
  type StagedEvent,
  type Write,
} from "@earshot/platform";
import type { Caller, MentionDeps, Membership, ProjectRole } from "./domain/deps";
import { handleKeywordEvent, handleProjectEvent } from "./domain/copies";
import { MENTIONS, type MentionDoc, openMentionCollections } from "./store";
import { wireMention } from "./wiring";

// The domain-test world: the mention verbs on the embedded store with the real outbox, a ManualClock,
// callers built as the RPC adapter builds them, and `seedMention` for tests about reads and triage;
// project and keyword events fed to the copies as the bus would deliver them, and posts for ingestion.

export interface MentionWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: MentionDeps;
  /** A second replica over the same store, for races between processes; `store` wraps the world's (to act between a read and a commit). */
  replica(store?: DocumentStore): MentionDeps;
  /** A caller with roles in projects (`{ prj_…: "editor" }`), in workspace `wsp_1` unless told. */
  caller(roles?: Record<string, ProjectRole | Membership>, overrides?: { userId?: string; workspaceId?: string }): Caller;
  /** Stores a mention directly (as ingestion would have), with defaults for what the test leaves out. */
  seedMention(projectId: string, fields?: Partial<MentionDoc>): Promise<MentionDoc>;
  events(): Promise<Array<CloudEvent & { topic: string; key: string }>>;
  /** Delivers a project event to the copies, as `deps` (or the other instance given) handles it. */
  projectEvent(type: string, data: Record<string, unknown>, to?: MentionDeps): Promise<void>;
  /** Delivers a keyword or keyword group event to the copies. */
  keywordEvent(type: string, data: Record<string, unknown>, to?: MentionDeps): Promise<void>;
  /** An active project known from its project.created, in `workspaceId` (default wsp_1). */
  newProject(workspaceId?: string): Promise<string>;
  /** An active keyword (keyword.created delivered); `more` overrides the event's fields. */
  addKeyword(projectId: string, value: string, more?: Record<string, unknown>, to?: MentionDeps): Promise<{ keywordId: string; groupId: string } & Record<string, unknown>>;
  /** A valid post of the project (JSON form, as post.collected carries it); `fields` override. */
  post(projectId: string, fields?: Record<string, unknown>): Record<string, unknown>;
  /** `post.collected` of a valid post of the project, as the integration service stages it; `fields` override the post's. */
  collectedPost(projectId: string, fields?: Record<string, unknown>): StagedEvent<PostCollected>;
  /** The commits that wrote mentions so far, in order (each a list of writes). */
  mentionCommits(): Write[][];
  close(): Promise<void>;
}

export const openMentionWorld = async (): Promise<MentionWorld> => {
  const embedded = await openEmbeddedStore();
  const commits: Write[][] = [];
  // The store as the service sees it, with its commits recorded (ingestion promises one per batch).
  const store: DocumentStore = {
    kind: embedded.kind,
    collection: (name) => embedded.collection(name),
    commit: (writes) => {
      commits.push(writes);
      return embedded.commit(writes);
    },
    close: () => embedded.close(),
  };
  // Now, not a fixed date: stores expire TTL-indexed records (effects, outbox) by the real time.
  const clock = new ManualClock(new Date());
  const collections = await openMentionCollections(store);
  // Each replica is a process of its own: its own outbox queue and its own matchers.
  const replica = (through: DocumentStore = store): MentionDeps => wireMention({ collections, outbox: new Outbox(through, clock, "mention"), clock, logger: silentLogger() });
  const deps = replica();
  await deps.outbox.ensureIndexes();
  let seeded = 0;
  let sequence = 0;
  const projectEvent = (type: string, data: Record<string, unknown>, to = deps) => handleProjectEvent(to, receivedEvent(PROJECT_EVENTS, type, data, clock));
  const keywordEvent = (type: string, data: Record<string, unknown>, to = deps) => handleKeywordEvent(to, receivedEvent(KEYWORD_EVENTS, type, data, clock));
  const post = (projectId: string, fields: Record<string, unknown> = {}): Record<string, unknown> => {
    sequence += 1;
    return {
      projectId,
      source: "x",
      sourceId: `tweet-${sequence}`,
      url: `https://x.com/someone/status/${sequence}`,
      text: "Nothing to see here",
      author: { id: "u1", handle: "@Someone", name: "Someone", followers: 10 },
      publishedAt: new Date(clock.now().getTime() - 60_000).toISOString(),
      collectedAt: clock.now().toISOString(),
      lang: "en",
      metrics: { likes: 1, replies: 0, shares: 0, views: 10 },
      ...fields,
    };
  };
  return {
    store,
    clock,
    deps,
    replica,
    caller: testProjectCaller,
    seedMention: async (projectId, fields = {}) => {
      seeded += 1;
      const now = clock.now();
      const sourceId = fields.sourceId ?? `post-${seeded}`;
      const source = fields.source ?? "x";
      const doc: MentionDoc = {
        _id: newId("men", now.getTime()),
        projectId,
        workspaceId: "wsp_1",
        source,
        sourceId,
        postKey: `${projectId}|${source}|${sourceId}`,
        url: `https://x.com/someone/status/${sourceId}`,
        text: "Acme launched today",
        author: { id: "u1", handle: "someone", name: "Someone" },
        authorKey: "someone",
        publishedAt: new Date(now.getTime() - seeded * 1000),
        keywordIds: ["kw_1"],
        groupIds: ["kwg_1"],
        matches: [{ keywordId: "kw_1", term: "Acme", field: "text", start: 0, end: 4 }],
        sentiment: { label: "neutral", score: 0, method: "lexicon" },
        words: ["acme", "launched", "today"],
        status: "open",
        collectedAt: now,
        matchedAt: now,
        updatedAt: now,
        history: [],
        _v: 1,
        ...fields,
      };
      return collections.mentions.insertOne(doc);
    },
    events: async () =>
      (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } })).map((r) => ({ ...r.event, topic: r.topic, key: r.key })),
    projectEvent,
    keywordEvent,
    newProject: async (workspaceId = "wsp_1") => {
      const projectId = newId("prj", clock.now().getTime());
      await projectEvent("project.created", { projectId, workspaceId, ownerId: "usr_1", name: "Launch", digestTimezone: "Europe/Paris" });
      return projectId;
    },
    addKeyword: async (projectId, value, more = {}, to = deps) => {
      const data = {
        keywordId: newId("kw", clock.now().getTime()),
        projectId,
        workspaceId: "wsp_1",
        groupId: `kwg_brand_${projectId}`,
        value,
        sources: ["x", "reddit", "youtube", "linkedin"],
        aliases: [],
        excludedTerms: [],
        filters: {},
        caseSensitive: false,
        active: true,
        ...more,
      };
      await keywordEvent("keyword.created", data, to);
      return data;
    },
    post,
    collectedPost: (projectId, fields = {}) => {
      // As the integration service stages it: the post's JSON form read as the event's message (counts as int64 strings).
      const { collectedAt, ...collected } = post(projectId, fields);
      const data = integrationV1Events.PostCollected.fromJSON({ ...collected, projectId, collectedAt: new Date(String(collectedAt)).toISOString() });
      return stageEvent(INTEGRATION_EVENTS, "post.collected", { key: projectId, subject: projectId }, data);
    },
    mentionCommits: () => commits.filter((writes) => writes.some((w) => w.collection === MENTIONS)),
    close: () => store.close(),
  };
};

export { refusalOf } from "@earshot/platform/testing";
