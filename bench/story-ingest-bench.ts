// Ingest throughput with story grouping on and off: the mention service's ingest (matching, sentiment,
// relevance, stories, one commit per batch) on the embedded store, fed the generated syndicated and
// unrelated posts of bench/story-data.ts in batches of 500, after two batches of another project that warm
// the process. Each run is a child process on a fresh store, in one of three arms: "on" (everything),
// "off" (the story step replaced with a plain commit, in this bench only: the difference is exactly what
// grouping costs, its signals, placing each post against the project's index in memory and the story
// fields stored) and "neither" (relevance scoring replaced as well: the aim compares ingest with
// scoring and grouping on to ingest with both off). Arms alternate within each round. An "on" run also
// times what a replica starting then pays on the project's first post: its story index replayed.
// Processor time a post is counted for the whole process and for its main thread alone (V8's collector
// and SQLite's flushes run on others): on a shared machine both move far less than posts a second.
// Usage: node services/platform/test/ts-child.js bench/story-ingest-bench.ts (BENCH_POSTS, default 20,000;
// BENCH_ROUNDS, default 5)
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { runBench } from "./bench-support";

const POSTS = Number(process.env.BENCH_POSTS ?? 20_000);
const BATCH = 500;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ARMS = ["off", "on", "neither"] as const;
type Arm = (typeof ARMS)[number];

interface Run {
  rate: number;
  cpuMicros: number;
  mainMicros: number;
  stories: number;
  replayMs: number;
  replayed: number;
}

/** Processor time (µs, at the kernel's tick) of this process's main thread. */
const mainThreadMicros = (): number => {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / Number(process.env.CLK_TCK ?? 100);
};

/* eslint-disable @typescript-eslint/no-require-imports -- the story module must be replaced before ingest loads it */
const runOne = async (arm: Arm): Promise<void> => {
  const on = arm === "on";
  if (arm === "neither") {
    const path = require.resolve("../services/mention/src/domain/relevance/ingest-score");
    const real = require(path) as Record<string, unknown>;
    require.cache[path]!.exports = { ...real, scoreIngested: async () => undefined };
  }
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
  const mainCpu = mainThreadMicros();
  let created = 0;
  for (let i = 0; i < posts.length; i += BATCH) created += (await ingestPosts(world.deps, posts.slice(i, i + BATCH))).created;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  // Processor time per post as well as wall time: on a shared machine it moves far less with other load.
  const cpuMicros = (used.user + used.system) / posts.length;
  const mainMicros = (mainThreadMicros() - mainCpu) / posts.length;
  if (created < posts.length * 0.95) throw new Error(`only ${created} of ${posts.length} posts became mentions`);
  // A profile of the measured ingest alone (node --cpu-prof with BENCH_STORY_RUN set) stops here.
  if (process.env.BENCH_INGEST_ONLY) {
    console.log(JSON.stringify({ rate: posts.length / seconds, cpuMicros, mainMicros }));
    process.exit(0);
  }
  const stories = new Set((await world.deps.collections.mentions.find({ projectId })).map((m) => m.storyId)).size;
  // What a replica starting now pays on the project's first post: its story index replayed from the mentions.
  const replica = world.replica();
  const replayStarted = process.hrtime.bigint();
  if (on) await replica.stories.indexFor(replica, projectId);
  const replayMs = Number(process.hrtime.bigint() - replayStarted) / 1e6;
  const run: Run = { rate: posts.length / seconds, cpuMicros, mainMicros, stories, replayMs, replayed: replica.stories.replayed };
  console.log(JSON.stringify(run));
  await world.close();
};
/* eslint-enable @typescript-eslint/no-require-imports */

const child = (arm: Arm): Run => {
  const res = spawnSync(process.execPath, [...process.execArgv, "services/platform/test/ts-child.js", __filename], {
    env: { ...process.env, BENCH_STORY_RUN: arm },
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout.trim().split("\n").at(-1)!) as Run;
};

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const pct = (more: number, base: number) => `${((more / base - 1) * 100).toFixed(1)}%`;

const main = async () => {
  if (process.env.BENCH_STORY_RUN) return runOne(process.env.BENCH_STORY_RUN as Arm);
  const runs: Record<Arm, Run[]> = { off: [], on: [], neither: [] };
  const show = (r: Run) => `${r.rate.toFixed(0)} posts/s, ${r.cpuMicros.toFixed(0)} CPU µs a post (main thread ${r.mainMicros.toFixed(0)})`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const arm of ARMS) runs[arm].push(child(arm));
    const [off, on, neither] = ARMS.map((arm) => runs[arm].at(-1)!) as [Run, Run, Run];
    console.log(`round ${round + 1}: off ${show(off)}; on ${show(on)}; neither ${show(neither)} (${on.stories} stories; a new replica replays ${on.replayed} mentions in ${on.replayMs.toFixed(0)} ms)`);
  }
  const m = (arm: Arm, k: "rate" | "cpuMicros" | "mainMicros" | "replayMs") => median(runs[arm].map((r) => r[k]));
  console.log(`${POSTS} posts, medians of ${ROUNDS}:`);
  for (const arm of ARMS) console.log(`  ${arm}: ${m(arm, "rate").toFixed(0)} posts/s, ${m(arm, "cpuMicros").toFixed(0)} CPU µs a post, main thread ${m(arm, "mainMicros").toFixed(0)}`);
  console.log(
    `  grouping (on vs off): ${((1 - m("on", "rate") / m("off", "rate")) * 100).toFixed(1)}% fewer posts/s, ${pct(m("on", "cpuMicros"), m("off", "cpuMicros"))} more CPU a post, ${pct(m("on", "mainMicros"), m("off", "mainMicros"))} on the main thread`,
  );
  console.log(
    `  scoring and grouping (on vs neither): ${((1 - m("on", "rate") / m("neither", "rate")) * 100).toFixed(1)}% fewer posts/s, ${pct(m("on", "cpuMicros"), m("neither", "cpuMicros"))} more CPU a post, ${pct(m("on", "mainMicros"), m("neither", "mainMicros"))} on the main thread`,
  );
  // Each round's arms ran one after another: the median of the rounds' own ratios cancels most of what
  // other load on the machine does between rounds.
  const paired = (arm: Arm, base: Arm, k: "rate" | "cpuMicros" | "mainMicros") => median(runs[arm].map((r, i) => r[k] / runs[base][i]![k]));
  console.log(
    `  medians of each round's ratios: grouping ${((1 - paired("on", "off", "rate")) * 100).toFixed(1)}% fewer posts/s, ${((paired("on", "off", "cpuMicros") - 1) * 100).toFixed(1)}% more CPU, ` +
      `${((paired("on", "off", "mainMicros") - 1) * 100).toFixed(1)}% on the main thread; scoring and grouping ${((1 - paired("on", "neither", "rate")) * 100).toFixed(1)}% fewer posts/s, ` +
      `${((paired("on", "neither", "cpuMicros") - 1) * 100).toFixed(1)}% more CPU, ${((paired("on", "neither", "mainMicros") - 1) * 100).toFixed(1)}% on the main thread`,
  );
  console.log(`  a new replica's replay: ${m("on", "replayMs").toFixed(0)} ms for ${runs.on[0]!.replayed} mentions`);
};

runBench(main);
