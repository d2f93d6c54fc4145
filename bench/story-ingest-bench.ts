// Ingest throughput with story grouping on and off: the mention service's ingest (matching, sentiment,
// relevance, stories, one commit per batch) on the embedded store, fed the generated syndicated and
// unrelated posts of bench/story-data.ts in batches of 500. Each run is a child process on a fresh store;
// in an "off" run the story step is a no-op (its module replaced before ingest loads it, in this bench
// only), so the difference is exactly what grouping costs: its signals, placing each post against the
// project's story index in memory, the index's first replay and the story fields stored. Runs alternate off/on.
// Usage: node services/platform/test/ts-child.js bench/story-ingest-bench.ts (BENCH_POSTS, default 20,000;
// BENCH_ROUNDS, default 5)
import { spawnSync } from "node:child_process";
import { runBench } from "./bench-support";

const POSTS = Number(process.env.BENCH_POSTS ?? 20_000);
const BATCH = 500;

/* eslint-disable @typescript-eslint/no-require-imports -- the story module must be replaced before ingest loads it */
const runOne = async (on: boolean): Promise<void> => {
  if (!on) {
    const path = require.resolve("../services/mention/src/domain/stories/assign-stories");
    const real = require(path) as Record<string, unknown>;
    // The mentions committed as they come, with no story and nothing checked.
    const storeWithoutStories = (_deps: unknown, _mentions: unknown, commit: (check: () => void) => Promise<unknown>) => commit(() => undefined);
    require.cache[path]!.exports = { ...real, storeWithStories: storeWithoutStories };
  }
  const { ingestPosts } = require("../services/mention/src/domain/ingest") as typeof import("../services/mention/src/domain/ingest");
  const { openMentionWorld } = require("../services/mention/src/test-support") as typeof import("../services/mention/src/test-support");
  const { storyPosts } = require("./story-data") as typeof import("./story-data");
  const world = await openMentionWorld();
  const [warmUp, projectId] = [await world.newProject(), await world.newProject()];
  await world.addKeyword(warmUp, "Acme");
  await world.addKeyword(projectId, "Acme");
  const generated = storyPosts(Math.round(POSTS / 6), Math.round(POSTS / 2), 99);
  const postsOf = (project: string) => generated.slice(0, POSTS).map((p, i) => world.post(project, { source: p.source, sourceId: `p${i}`, url: p.url, text: p.text, publishedAt: p.publishedAt.toISOString() }));
  // A first project's two batches warm the process (compiled code, prepared statements): what is measured is
  // a running service's ingest into a project of its own.
  for (const batch of [postsOf(warmUp).slice(0, BATCH), postsOf(warmUp).slice(BATCH, 2 * BATCH)]) await ingestPosts(world.deps, batch);
  const posts = postsOf(projectId);
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let created = 0;
  for (let i = 0; i < posts.length; i += BATCH) created += (await ingestPosts(world.deps, posts.slice(i, i + BATCH))).created;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  // Processor time per post as well as wall time: on a shared machine it moves far less with other load.
  const cpuMicros = (used.user + used.system) / posts.length;
  if (created < posts.length * 0.95) throw new Error(`only ${created} of ${posts.length} posts became mentions`);
  const stories = new Set((await world.deps.collections.mentions.find({ projectId })).map((m) => m.storyId)).size;
  // What a replica starting now pays on the project's first post: its story index replayed from the mentions.
  const replica = world.replica();
  const replayStarted = process.hrtime.bigint();
  if (on) await replica.stories.indexFor(replica, projectId);
  const replayMs = Number(process.hrtime.bigint() - replayStarted) / 1e6;
  console.log(JSON.stringify({ rate: posts.length / seconds, cpuMicros, stories, replayMs, replayed: replica.stories.replayed }));
  await world.close();
};
/* eslint-enable @typescript-eslint/no-require-imports */

const child = (on: boolean) => {
  const res = spawnSync(process.execPath, [...process.execArgv, "services/platform/test/ts-child.js", __filename], {
    env: { ...process.env, BENCH_STORY_RUN: on ? "on" : "off" },
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout.trim().split("\n").at(-1)!) as { rate: number; cpuMicros: number; stories: number; replayMs: number; replayed: number };
};

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const main = async () => {
  if (process.env.BENCH_STORY_RUN) return runOne(process.env.BENCH_STORY_RUN === "on");
  const off: Array<{ rate: number; cpuMicros: number }> = [];
  const on: Array<{ rate: number; cpuMicros: number; replayMs: number; replayed: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = child(false);
    const b = child(true);
    off.push(a);
    on.push(b);
    console.log(`round ${round + 1}: off ${a.rate.toFixed(0)} posts/s, ${a.cpuMicros.toFixed(0)} CPU µs a post; on ${b.rate.toFixed(0)} posts/s, ${b.cpuMicros.toFixed(0)} CPU µs a post (${b.stories} stories; a new replica's replay of ${b.replayed} mentions ${b.replayMs.toFixed(0)} ms)`);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const [offRate, onRate] = [median(off.map((r) => r.rate)), median(on.map((r) => r.rate))];
  const [offCpu, onCpu] = [median(off.map((r) => r.cpuMicros)), median(on.map((r) => r.cpuMicros))];
  console.log(
    `${POSTS} posts, medians of ${ROUNDS}: off ${offRate.toFixed(0)} posts/s (${offCpu.toFixed(0)} CPU µs a post), on ${onRate.toFixed(0)} posts/s (${onCpu.toFixed(0)} CPU µs a post): ` +
      `${((1 - onRate / offRate) * 100).toFixed(1)}% fewer posts/s, ${((onCpu / offCpu - 1) * 100).toFixed(1)}% more CPU a post`,
  );
};

runBench(main);
