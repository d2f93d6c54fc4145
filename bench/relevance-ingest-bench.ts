// Ingest throughput with relevance scoring on and off: the mention service's ingest (matching, sentiment,
// relevance, stories, one commit per batch) on the embedded store, fed the labelled posts of
// bench/relevance-data.ts in batches of 500, with a project description, an alias and an exclusion as
// context and 50 ratings already learned (so the model has counts to read). Each run is a child process on
// a fresh store; in an "off" run the relevance step is a no-op (its module replaced before ingest loads
// it, in this bench only), so the difference is exactly what scoring costs: one read of the model per
// batch, the prior (cached), features and score of each mention, and the larger documents written.
// Runs alternate off/on.
// Usage: node services/platform/test/ts-child.js bench/relevance-ingest-bench.ts (BENCH_POSTS, default 12,000)
import { spawnSync } from "node:child_process";
import { runBench } from "./bench-support";

const POSTS = Number(process.env.BENCH_POSTS ?? 12_000);
const BATCH = 500;

/* eslint-disable @typescript-eslint/no-require-imports -- the relevance step must be replaced before ingest loads it */
const runOne = async (on: boolean): Promise<void> => {
  // Off: the step does nothing. On: the real step, timed, so its share of the ingest is measured in the
  // same run (steadier than the difference of two runs on a busy machine).
  const path = require.resolve("../services/mention/src/domain/relevance/ingest-score");
  const real = require(path) as typeof import("../services/mention/src/domain/relevance/ingest-score");
  let scoring = 0n;
  require.cache[path]!.exports = {
    scoreIngested: on
      ? async (...args: Parameters<typeof real.scoreIngested>) => {
          const t = process.hrtime.bigint();
          await real.scoreIngested(...args);
          scoring += process.hrtime.bigint() - t;
        }
      : async () => undefined,
  };
  const { ingestPosts } = require("../services/mention/src/domain/ingest") as typeof import("../services/mention/src/domain/ingest");
  const { openMentionWorld } = require("../services/mention/src/test-support") as typeof import("../services/mention/src/test-support");
  const { BRANDS, labelledPosts } = require("./relevance-data") as typeof import("./relevance-data");
  const { featuresOf } = require("../services/mention/src/domain/relevance/features") as typeof import("../services/mention/src/domain/relevance/features");
  const { learn, emptyCounts } = require("../services/mention/src/domain/relevance/model") as typeof import("../services/mention/src/domain/relevance/model");
  const brand = BRANDS[0]!;
  const world = await openMentionWorld();
  const projectId = await world.newProject();
  await world.projectEvent("project.updated", { projectId, workspaceId: "wsp_1", fields: ["description"], project: { id: projectId, description: brand.description } });
  await world.addKeyword(projectId, brand.name, { aliases: brand.aliases, excludedTerms: brand.excludedTerms });
  // A model with 50 ratings' counts, as a project that has been rating for a while.
  let counts = emptyCounts();
  const rated = labelledPosts(brand, 60, 5);
  for (const p of rated.slice(0, 50)) {
    const at = p.text.toLowerCase().indexOf(brand.name.toLowerCase());
    if (at >= 0) counts = learn(counts, featuresOf({ text: p.text, source: p.source, authorKey: p.author, keywordIds: [], matches: [{ keywordId: "k", term: brand.name, field: "text", start: at, end: at + brand.name.length }] }), p.relevant, 1);
  }
  await world.deps.collections.relevanceModels.insertOne({ _id: projectId, workspaceId: "wsp_1", revision: 50, ...counts, updatedAt: world.clock.now(), _v: 1 });
  const generated = labelledPosts(brand, Math.round(POSTS * 1.2), 77);
  const posts = generated.slice(0, POSTS).map((p, i) => world.post(projectId, { source: p.source, sourceId: `p${i}`, text: p.text, author: { id: p.author, handle: p.author, name: p.author } }));
  const started = process.hrtime.bigint();
  let created = 0;
  for (let i = 0; i < posts.length; i += BATCH) created += (await ingestPosts(world.deps, posts.slice(i, i + BATCH))).created;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const scored = (await world.deps.collections.mentions.find({ projectId })).filter((m) => m.relevance).length;
  console.log(JSON.stringify({ rate: posts.length / seconds, created, scored, share: Number(scoring) / 1e9 / seconds }));
  await world.close();
};
/* eslint-enable @typescript-eslint/no-require-imports */

const child = (on: boolean) => {
  const res = spawnSync(process.execPath, [...process.execArgv, "services/platform/test/ts-child.js", __filename], {
    env: { ...process.env, BENCH_RELEVANCE_RUN: on ? "on" : "off" },
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout.trim().split("\n").at(-1)!) as { rate: number; created: number; scored: number; share: number };
};

const main = async () => {
  if (process.env.BENCH_RELEVANCE_RUN) return runOne(process.env.BENCH_RELEVANCE_RUN === "on");
  const off: number[] = [];
  const on: number[] = [];
  const shares: number[] = [];
  for (let round = 0; round < 3; round++) {
    const a = child(false);
    const b = child(true);
    off.push(a.rate);
    on.push(b.rate);
    shares.push(b.share);
    console.log(`round ${round + 1}: off ${a.rate.toFixed(0)} posts/s (${a.created} mentions, ${a.scored} scored), on ${b.rate.toFixed(0)} posts/s (${b.created} mentions, ${b.scored} scored; the scoring step ${(b.share * 100).toFixed(1)}% of the run)`);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[1]!;
  console.log(`${POSTS} posts, median of 3: off ${median(off).toFixed(0)} posts/s, on ${median(on).toFixed(0)} posts/s (${((1 - median(on) / median(off)) * 100).toFixed(1)}% slower); the scoring step's share of an "on" run, median ${(median(shares) * 100).toFixed(1)}%`);
};

runBench(main);
