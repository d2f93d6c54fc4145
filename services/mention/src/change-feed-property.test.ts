import { KEYWORD_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { type DocumentStore, isDomainError, ManualClock, openEmbeddedStore, Outbox, silentLogger } from "@earshot/platform";
import { makeTempDir, receivedEvent, testProjectCaller } from "@earshot/platform/testing";
import fc from "fast-check";
import { openMentionCollections } from "./store";
import { wireMention } from "./wiring";
import { createCategory } from "./domain/categories";
import { listMentionChanges } from "./domain/changes";
import { handleKeywordEvent, handleProjectEvent } from "./domain/copies";
import type { MentionDeps } from "./domain/deps";
import { ingestPosts } from "./domain/ingest";
import { categorizeMention, updateMentionStatus } from "./domain/mentions";

// Two replicas write a project's mentions at once (ingested batches, status and category changes, keyword
// moves that regroup), while a reader follows the change feed, passing each nextCursor back, a few changes
// at a time; between rounds the whole service restarts (the store closed and opened again from its
// directory, new processes). The reader never sees a number twice or out of order, and at the end it has
// every mention, each in the state the store holds, at its latest change.

const WORDS = ["alpha", "bravo", "charlie"] as const;
const GROUPS = ["kwg_brand", "kwg_rivals"] as const;
const STATUSES = ["open", "done", "follow_up"] as const;
const PROJECT = "prj_feed";

type Op =
  | { kind: "ingest"; words: number[]; posts: number }
  | { kind: "status"; pick: number; status: number }
  | { kind: "category"; pick: number; set: boolean }
  | { kind: "move"; word: number; group: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("ingest" as const), words: fc.uniqueArray(fc.nat({ max: 2 }), { minLength: 1, maxLength: 2 }), posts: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("status" as const), pick: fc.nat(), status: fc.nat({ max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("category" as const), pick: fc.nat(), set: fc.boolean() }) },
  fc.record({ kind: fc.constant("move" as const), word: fc.nat({ max: 2 }), group: fc.nat({ max: 1 }) }),
);

const round = fc.record({ a: fc.array(op, { maxLength: 4 }), b: fc.array(op, { maxLength: 4 }), reads: fc.integer({ min: 0, max: 3 }), restart: fc.boolean() });

interface Seen {
  seq: number;
  status: string;
  categoryId: string | undefined;
  groupIds: string[];
}

describe("the change feed under concurrent writers and restarts", () => {
  it("gives a reader passing nextCursor every change once, in order, ending at every mention's stored state", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(round, { minLength: 2, maxLength: 6 }), async (rounds) => {
        const { dir, cleanup } = await makeTempDir("earshot-feed-");
        const clock = new ManualClock(new Date());
        const editor = testProjectCaller({ [PROJECT]: "editor" });
        let store: DocumentStore | undefined;
        try {
          const start = async () => {
            // Restarts without a crash: the fsync of every commit would only slow the runs down.
            store = await openEmbeddedStore({ dir, sync: "normal" });
            const collections = await openMentionCollections(store);
            const process = () => wireMention({ collections, outbox: new Outbox(store!, clock, "mention"), clock, logger: silentLogger() });
            return { writers: [process(), process()] as const, reader: process() };
          };
          let service = await start();
          const [first] = service.writers;
          await handleProjectEvent(first, receivedEvent(PROJECT_EVENTS, "project.created", { projectId: PROJECT, workspaceId: "wsp_1", ownerId: "usr_1", name: "Feed" }, clock));
          const keyword = (w: number, group: number) => ({
            keywordId: `kw_${w}`, projectId: PROJECT, workspaceId: "wsp_1", groupId: GROUPS[group], value: WORDS[w], sources: ["x"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false, active: true,
          });
          for (const w of [0, 1, 2]) await handleKeywordEvent(first, receivedEvent(KEYWORD_EVENTS, "keyword.created", keyword(w, w % 2), clock));
          const category = await createCategory(first, editor, { projectId: PROJECT, name: "Leads" });
          let posted = 0;

          const apply = async (deps: MentionDeps, o: Op) => {
            const ids = (await deps.collections.mentions.find({ projectId: PROJECT }, { sort: { _id: 1 } })).map((m) => m._id);
            const picked = o.kind === "status" || o.kind === "category" ? ids[o.pick % Math.max(ids.length, 1)] : undefined;
            try {
              if (o.kind === "ingest") {
                const posts = Array.from({ length: o.posts }, () => {
                  posted += 1;
                  return { projectId: PROJECT, source: "x", sourceId: `p${posted}`, url: `https://x.com/a/status/${posted}`, text: o.words.map((w) => WORDS[w]).join(" "), author: { id: "u1", handle: "a", name: "A" }, publishedAt: clock.now().toISOString() };
                });
                await ingestPosts(deps, posts);
              } else if (o.kind === "status" && picked) await updateMentionStatus(deps, editor, picked, STATUSES[o.status]!);
              else if (o.kind === "category" && picked) await categorizeMention(deps, editor, picked, o.set ? category._id : null);
              else if (o.kind === "move") await handleKeywordEvent(deps, receivedEvent(KEYWORD_EVENTS, "keyword.updated", { ...keyword(o.word, o.group), fields: ["groupId"] }, clock));
            } catch (err) {
              // Losing every retry to the other writer is an answer the API gives too (409); nothing was written.
              if (!(isDomainError(err) && err.code === "conflict")) throw err;
            }
          };

          let cursor: string | undefined;
          let lastSeq = 0;
          const seen = new Map<string, Seen>();
          const pairs = new Set<string>();
          const readOnce = async (reader: MentionDeps) => {
            const page = await listMentionChanges(reader, testProjectCaller({ [PROJECT]: "viewer" }), { projectId: PROJECT, cursor, limit: 3 });
            for (const c of page.changes) {
              expect(c.seq).toBeGreaterThan(lastSeq);
              lastSeq = c.seq;
              const pair = `${c.mention._id}@${c.seq}`;
              expect(pairs.has(pair)).toBe(false);
              pairs.add(pair);
              // Created means stored after the cursor, so never a mention the reader holds already. (One stored
              // before it that changed again before the reads reached it comes first as updated.)
              if (seen.has(c.mention._id)) expect(c.change).toBe("updated");
              seen.set(c.mention._id, { seq: c.seq, status: c.mention.status, categoryId: c.mention.categoryId, groupIds: [...c.mention.groupIds].sort() });
            }
            cursor = page.nextCursor;
            return page;
          };

          for (const r of rounds) {
            const [a, b] = service.writers;
            const reads = async () => {
              for (let i = 0; i < r.reads; i++) await readOnce(service.reader);
            };
            const run = async (deps: MentionDeps, ops: Op[]) => {
              for (const o of ops) await apply(deps, o);
            };
            // Keyword moves come one at a time through one consumer, as the keyword events' group delivers them.
            await Promise.all([run(a, r.a), run(b, r.b.filter((o) => o.kind !== "move")), reads()]);
            if (r.restart) {
              await store!.close();
              service = await start();
            }
          }
          for (;;) {
            const page = await readOnce(service.reader);
            if (page.changes.length === 0 && !page.hasMore) break;
          }
          const stored = await service.reader.collections.mentions.find({ projectId: PROJECT });
          expect(seen.size).toBe(stored.length);
          for (const m of stored) {
            expect(seen.get(m._id)).toEqual({ seq: m.changeSeq, status: m.status, categoryId: m.categoryId, groupIds: [...m.groupIds].sort() });
          }
        } finally {
          await store?.close();
          await cleanup();
        }
      }),
      { seed: 20261128, numRuns: 15 },
    );
  });
});
