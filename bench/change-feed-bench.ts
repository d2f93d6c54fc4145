// What the mention change feed costs and answers in, on the embedded store (a file-backed store, WAL,
// synchronous=FULL as the all-in-one runs it), in one process:
//   - the commit of ingestion: N generated mentions committed in units of 500 (ingestion's batch) with
//     their outbox records, once as before the feed (the inserts alone) and once numbered in the project's
//     change sequence (`commitChanges`: a read of the sequence document and its versioned replace in the
//     same commit), each twice in alternating order (the machine is shared: compare the ratio);
//   - reads of the feed over those N mentions: the whole feed in pages of 100 following nextCursor, and a
//     page selected by a keyword that 1 in 10 mentions hold;
//   - a long poll woken by a commit: the time from the commit's start to the waiting read's answer;
//   - a keyword move over 20,000 of its mentions (regroup.ts), now a numbered commit per page of 500.
// Usage: node services/platform/test/ts-child.js bench/change-feed-bench.ts [N]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, openEmbeddedStore, Outbox, silentLogger, stageEvent } from "@earshot/platform";
import { testProjectCaller } from "@earshot/platform/testing";
import { MENTION_EVENTS } from "@earshot/contracts/events";
import { commitChanges } from "../services/mention/src/domain/change-sequence";
import { listMentionChanges } from "../services/mention/src/domain/changes";
import { regroupKeywordMentions } from "../services/mention/src/domain/regroup";
import { type MentionDoc, MENTIONS, openMentionCollections } from "../services/mention/src/store";
import { wireMention } from "../services/mention/src/wiring";
import { mentionGenerator } from "./mention-data";
import { runBench } from "./bench-support";

const N = Number(process.argv[2] ?? 20_000);
const BATCH = 500;
const PROJECT = "prj_bench";
type Shape = "before" | "numbered";

const open = async (dir: string) => {
  const store = await openEmbeddedStore({ dir });
  const collections = await openMentionCollections(store);
  const clock = new ManualClock(new Date());
  const deps = wireMention({ collections, outbox: new Outbox(store, clock, "mention"), clock, logger: silentLogger() });
  return { store, deps };
};

/** A small event per mention, as ingestion stages one (its size matters less than its count here). */
const eventOf = (m: MentionDoc) => stageEvent(MENTION_EVENTS, "mention.updated", { key: m.projectId, subject: m._id }, {
  mentionId: m._id, projectId: m.projectId, workspaceId: m.workspaceId, fields: ["status"], status: "open", categoryId: "", byUserId: "usr_bench",
});

const ingest = async (shape: Shape, dir: string, total = N, unit = BATCH) => {
  const { store, deps } = await open(dir);
  const next = mentionGenerator(PROJECT, "wsp_bench");
  const t0 = process.hrtime.bigint();
  for (let done = 0; done < total; done += unit) {
    const batch = Array.from({ length: Math.min(unit, total - done) }, () => next());
    const writes = (ms: MentionDoc[]) => ms.map((doc) => ({ kind: "insert" as const, collection: MENTIONS, doc }));
    if (shape === "before") await deps.outbox.commit(writes(batch), batch.map(eventOf));
    else {
      await commitChanges(deps, new Map([[PROJECT, batch.length]]), (first) => {
        batch.forEach((m, i) => Object.assign(m, { changeSeq: first.get(PROJECT)! + i, createdSeq: first.get(PROJECT)! + i }));
        return { writes: writes(batch), events: batch.map(eventOf) };
      });
    }
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, store, deps };
};

const main = async () => {
  const times: Record<Shape, number[]> = { before: [], numbered: [] };
  const dirs: string[] = [];
  try {
    for (const order of [["before", "numbered"], ["numbered", "before"]] as Shape[][]) {
      for (const shape of order) {
        const dir = await mkdtemp(join(tmpdir(), "earshot-feed-bench-"));
        dirs.push(dir);
        const { ms, store } = await ingest(shape, dir);
        times[shape].push(ms);
        await store.close();
      }
    }
    const before = Math.min(...times.before);
    const numbered = Math.min(...times.numbered);
    process.stdout.write(`ingest commits, ${N} mentions in units of ${BATCH}: before ${before.toFixed(0)} ms (${Math.round((N / before) * 1000)}/s), numbered ${numbered.toFixed(0)} ms (${Math.round((N / numbered) * 1000)}/s), ${(numbered / before).toFixed(3)}x (best of 2 each)\n`);
    // One mention per commit, as a triage commits: the sequence's read and replace weigh most here.
    const single: Record<Shape, number[]> = { before: [], numbered: [] };
    for (const shape of ["before", "numbered", "numbered", "before"] as Shape[]) {
      const dir = await mkdtemp(join(tmpdir(), "earshot-feed-bench-"));
      const { ms, store: s1 } = await ingest(shape, dir, 2_000, 1);
      single[shape].push(ms);
      await s1.close();
      await rm(dir, { recursive: true, force: true });
    }
    const [b1, n1] = [Math.min(...single.before), Math.min(...single.numbered)];
    process.stdout.write(`one mention per commit, 2,000 commits: before ${(b1 / 2000).toFixed(3)} ms a commit, numbered ${(n1 / 2000).toFixed(3)} ms, ${(n1 / b1).toFixed(3)}x\n`);

    // Reads over the last numbered store.
    const { store, deps } = await open(dirs.at(-2)!);
    deps.collections.projects.insertOne({ _id: PROJECT, workspaceId: "wsp_bench", status: "active", timezone: "UTC", updatedAt: new Date() } as never);
    const viewer = testProjectCaller({ [PROJECT]: { role: "viewer", workspaceId: "wsp_bench" } }, { workspaceId: "wsp_bench" });
    let cursor: string | undefined;
    let pages = 0;
    let seen = 0;
    const t0 = process.hrtime.bigint();
    for (;;) {
      const page = await listMentionChanges(deps, viewer, { projectId: PROJECT, cursor, limit: 100 });
      pages += 1;
      seen += page.changes.length;
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    const whole = Number(process.hrtime.bigint() - t0) / 1e6;
    process.stdout.write(`whole feed: ${seen} changes in ${pages} pages of 100 in ${whole.toFixed(0)} ms, ${(whole / pages).toFixed(2)} ms a page\n`);
    const someKeyword = (await deps.collections.mentions.find({ projectId: PROJECT }, { limit: 1 }))[0]!.keywordIds[0]!;
    const held = await deps.collections.mentions.count({ projectId: PROJECT, keywordIds: someKeyword });
    const t1 = process.hrtime.bigint();
    const filtered = await listMentionChanges(deps, viewer, { projectId: PROJECT, filters: { keywordId: [someKeyword] }, limit: 100 });
    process.stdout.write(`a page selected by a keyword ${held} of ${N} mentions hold: ${filtered.changes.length} changes in ${(Number(process.hrtime.bigint() - t1) / 1e6).toFixed(1)} ms\n`);

    const wakes: number[] = [];
    const next = mentionGenerator(PROJECT, "wsp_bench", 7);
    for (let i = 0; i < 20; i++) {
      let started = 0n;
      const waiting = listMentionChanges(deps, viewer, { projectId: PROJECT, cursor, waitSeconds: 10 }).then((page) => {
        wakes.push(Number(process.hrtime.bigint() - started) / 1e6);
        return page;
      });
      while (deps.changes.waiting === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      started = process.hrtime.bigint();
      const m = { ...next(), _id: `men_wake${i}`, postKey: `${PROJECT}|x|wake-${i}` };
      await commitChanges(deps, new Map([[PROJECT, 1]]), (first) => ({ writes: [{ kind: "insert", collection: MENTIONS, doc: { ...m, changeSeq: first.get(PROJECT)!, createdSeq: first.get(PROJECT)! } }], events: [] }));
      cursor = (await waiting).nextCursor;
    }
    wakes.sort((a, b) => a - b);
    process.stdout.write(`long poll woken by a commit (commit included), 20 times: median ${wakes[10]!.toFixed(1)} ms, max ${wakes[19]!.toFixed(1)} ms\n`);
    await store.close();

    const moveDir = await mkdtemp(join(tmpdir(), "earshot-feed-bench-"));
    dirs.push(moveDir);
    const moved = await ingest("numbered", moveDir, 20_000);
    await moved.deps.collections.mentions.updateMany({ projectId: PROJECT }, { $set: { keywordIds: ["kw_move"], groupIds: ["kwg_a"] } });
    await moved.deps.collections.keywords.insertOne({ _id: "kw_move", projectId: PROJECT, groupId: "kwg_b", value: "move", sources: ["x"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false, active: true, updatedAt: new Date() });
    const t2 = process.hrtime.bigint();
    const changed = await regroupKeywordMentions(moved.deps, PROJECT, "kw_move");
    process.stdout.write(`keyword move: ${changed} mentions regrouped and numbered in ${(Number(process.hrtime.bigint() - t2) / 1e6).toFixed(0)} ms\n`);
    await moved.store.close();
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
};

runBench(main);
