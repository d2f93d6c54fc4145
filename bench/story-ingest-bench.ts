// Ingest throughput with story grouping on and off: the mention service's ingest (matching, sentiment,
// relevance, stories, one commit per batch) on the embedded store, fed the generated syndicated and
// unrelated posts of bench/story-data.ts in batches of 500. Each run is a child process on a fresh store;
// in an "off" run the story step is a no-op (its module replaced before ingest loads it, in this bench
// only), so the difference is exactly what grouping costs: its index read, its signals and its key writes
// in the batch's commit. Runs alternate off/on.
// Usage: node services/platform/test/ts-child.js bench/story-ingest-bench.ts (BENCH_POSTS, default 20,000)
import { spawnSync } from "node:child_process";
import { runBench } from "./bench-support";

const POSTS = Number(process.env.BENCH_POSTS ?? 20_000);
const BATCH = 500;

/* eslint-disable @typescript-eslint/no-require-imports -- the story module must be replaced before ingest loads it */
const runOne = async (on: boolean): Promise<void> => {
  if (!on) {
    const path = require.resolve("../services/mention/src/domain/stories/assign-stories");
    const real = require(path) as Record<string, unknown>;
    require.cache[path]!.exports = { ...real, assignStories: async () => undefined };
  }
  const { ingestPosts } = require("../services/mention/src/domain/ingest") as typeof import("../services/mention/src/domain/ingest");
  const { openMentionWorld } = require("../services/mention/src/test-support") as typeof import("../services/mention/src/test-support");
  const { storyPosts } = require("./story-data") as typeof import("./story-data");
  const world = await openMentionWorld();
  const projectId = await world.newProject();
  await world.addKeyword(projectId, "Acme");
  const generated = storyPosts(Math.round(POSTS / 6), Math.round(POSTS / 2), 99);
  const posts = generated.slice(0, POSTS).map((p, i) => world.post(projectId, { source: p.source, sourceId: `p${i}`, url: p.url, text: p.text, publishedAt: p.publishedAt.toISOString() }));
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
  console.log(JSON.stringify({ rate: posts.length / seconds, cpuMicros, stories }));
  await world.close();
};
/* eslint-enable @typescript-eslint/no-require-imports */

const child = (on: boolean) => {
  const res = spawnSync(process.execPath, [...process.execArgv, "services/platform/test/ts-child.js", __filename], {
    env: { ...process.env, BENCH_STORY_RUN: on ? "on" : "off" },
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout.trim().split("\n").at(-1)!) as { rate: number; cpuMicros: number; stories: number };
};

const main = async () => {
  if (process.env.BENCH_STORY_RUN) return runOne(process.env.BENCH_STORY_RUN === "on");
  const off: Array<{ rate: number; cpuMicros: number }> = [];
  const on: Array<{ rate: number; cpuMicros: number }> = [];
  for (let round = 0; round < 3; round++) {
    const a = child(false);
    const b = child(true);
    off.push(a);
    on.push(b);
    console.log(`round ${round + 1}: off ${a.rate.toFixed(0)} posts/s, ${a.cpuMicros.toFixed(0)} CPU µs a post; on ${b.rate.toFixed(0)} posts/s, ${b.cpuMicros.toFixed(0)} CPU µs a post (${b.stories} stories)`);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[1]!;
  const [offRate, onRate] = [median(off.map((r) => r.rate)), median(on.map((r) => r.rate))];
  const [offCpu, onCpu] = [median(off.map((r) => r.cpuMicros)), median(on.map((r) => r.cpuMicros))];
  console.log(
    `${POSTS} posts, medians of 3: off ${offRate.toFixed(0)} posts/s (${offCpu.toFixed(0)} CPU µs a post), on ${onRate.toFixed(0)} posts/s (${onCpu.toFixed(0)} CPU µs a post): ` +
      `${((1 - onRate / offRate) * 100).toFixed(1)}% fewer posts/s, ${((onCpu / offCpu - 1) * 100).toFixed(1)}% more CPU a post`,
  );
};

runBench(main);
