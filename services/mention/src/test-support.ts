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
} from "@earshot/platform";
import type { Caller, MentionDeps, Membership, ProjectRole } from "./domain/deps";
import { type MentionDoc, openMentionCollections } from "./store";

// The domain-test world: the mention verbs on the embedded store with the real outbox, a ManualClock,
// callers built as the RPC adapter builds them, and `seedMention` for tests about reads and triage.

export interface MentionWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: MentionDeps;
  /** A second replica over the same store, for races between processes. */
  replica(): MentionDeps;
  /** A caller with roles in projects (`{ prj_…: "editor" }`), in workspace `wsp_1` unless told. */
  caller(roles?: Record<string, ProjectRole | Membership>, overrides?: { userId?: string; workspaceId?: string }): Caller;
  /** Stores a mention directly (as ingestion would have), with defaults for what the test leaves out. */
  seedMention(projectId: string, fields?: Partial<MentionDoc>): Promise<MentionDoc>;
  events(): Promise<Array<CloudEvent & { topic: string; key: string }>>;
  close(): Promise<void>;
}

export const openMentionWorld = async (): Promise<MentionWorld> => {
  const store = await openEmbeddedStore();
  // Now, not a fixed date: stores expire TTL-indexed records (effects, outbox) by the real time.
  const clock = new ManualClock(new Date());
  const collections = await openMentionCollections(store);
  const replica = (): MentionDeps => ({ collections, outbox: new Outbox(store, clock, "mention"), clock, logger: silentLogger() });
  const deps = replica();
  await deps.outbox.ensureIndexes();
  let seeded = 0;
  return {
    store,
    clock,
    deps,
    replica,
    caller: (roles = {}, overrides = {}) => {
      const memberships = new Map(
        Object.entries(roles).map(([projectId, r]) => [projectId, typeof r === "string" ? { role: r, workspaceId: overrides.workspaceId ?? "wsp_1" } : r]),
      );
      return {
        userId: overrides.userId ?? "usr_1",
        workspaceId: overrides.workspaceId ?? "wsp_1",
        allowances: { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 },
        membership: (id) => memberships.get(id),
      };
    },
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
    close: () => store.close(),
  };
};

export { refusalOf } from "@earshot/platform/testing";
