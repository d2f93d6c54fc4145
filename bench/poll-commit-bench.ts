// The writes of a poll on the embedded store, alone: claim the poller's lease (a versioned update), then
// commit the poll's outcome (the poller replaced at its version, a poll record, one outbox event per post
// found) as the integration service does, for N pollers polled 4 at a time (the scheduler's concurrency).
// Two ways in the same run, each on a fresh data directory:
// - fsync per commit on the event loop (SQLite's synchronous=FULL: how the store committed before), and
// - the store's group commit (its default `full` sync now: SQLite writes the log, the store fsyncs it off
//   the event loop once for the commits made meanwhile).
// It prints polls/s and the event loop's utilisation (the share of the time it was busy, fsyncs included
// when they run on it). Usage: node services/platform/test/ts-child.js bench/poll-commit-bench.ts [N] (1,000).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Outbox, openEmbeddedStore, SqliteStore, systemClock, type DocumentStore } from "@earshot/platform";
import { runBench } from "./bench-support";

const N = Number(process.argv[2] ?? 1_000);
const CONCURRENCY = 4;
const EVENTS_PER_POLL = 3;

interface Poller {
  _id: string;
  _v?: number;
  projectId: string;
  source: string;
  cursor: string;
  recentIds: string[];
  nextPollAt: Date;
  leaseOwner?: string;
  leaseUntil?: Date;
}

const run = async (label: string, open: (dir: string) => Promise<DocumentStore>) => {
  const dir = await mkdtemp(join(tmpdir(), "earshot-poll-commit-bench-"));
  const store = await open(dir);
  try {
    const outbox = new Outbox(store, systemClock, "integration");
    await outbox.ensureIndexes();
    const pollers = store.collection<Poller>("pollers");
    await pollers.ensureIndex({ fields: { enabled: 1, nextPollAt: 1 } });
    await store.collection("poll_records").ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
    for (let i = 0; i < N; i++) {
      await pollers.insertOne({ _id: `prj_${i}:x`, projectId: `prj_${i}`, source: "x", cursor: "0", recentIds: [], nextPollAt: new Date() });
    }
    let next = 0;
    const elu = performance.eventLoopUtilization();
    const started = performance.now();
    const worker = async () => {
      while (next < N) {
        const i = next++;
        const id = `prj_${i}:x`;
        const current = (await pollers.findById(id)) as Poller;
        const claimed = await pollers.updateVersioned(id, current._v ?? 1, { $set: { leaseOwner: "bench", leaseUntil: new Date(Date.now() + 600_000) } });
        const now = new Date();
        const found = Array.from({ length: EVENTS_PER_POLL }, (_, k) => `post-${i}-${k}`);
        const poller: Poller = { ...claimed, cursor: found[found.length - 1] as string, recentIds: [...claimed.recentIds, ...found], nextPollAt: new Date(now.getTime() + 300_000), leaseOwner: undefined, leaseUntil: undefined };
        await outbox.commit(
          [
            { kind: "replace", collection: "pollers", doc: poller, expectedVersion: claimed._v ?? 1 },
            { kind: "insert", collection: "poll_records", doc: { _id: `${id}:${now.getTime()}`, pollerId: id, at: now, found: found.length, lagsMs: [], expiresAt: new Date(now.getTime() + 86_400_000) } },
          ],
          found.map((sourceId) => ({ type: "post.collected", key: `prj_${i}`, subject: sourceId, data: { projectId: `prj_${i}`, sourceId, text: "a post found by the poll" } })),
        );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const ms = performance.now() - started;
    const busy = performance.eventLoopUtilization(elu).utilization;
    process.stdout.write(`${label.padEnd(44)} ${N} polls in ${ms.toFixed(0)} ms = ${((N / ms) * 1000).toFixed(0)} polls/s, ${(ms / N).toFixed(2)} ms per poll; event loop busy ${(busy * 100).toFixed(0)}%\n`);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

const main = async () => {
  process.stdout.write(`node ${process.version}; ${N} pollers, ${CONCURRENCY} polls at once, ${EVENTS_PER_POLL} posts found per poll\n`);
  for (let round = 0; round < 2; round++) {
    await run("fsync per commit, on the event loop (before)", async (dir) => {
      const store = await openEmbeddedStore({ dir, sync: "normal" });
      (store as SqliteStore).db.pragma("synchronous = FULL");
      return store;
    });
    await run("group commit (the store's default now)", (dir) => openEmbeddedStore({ dir }));
  }
};

runBench(main);
