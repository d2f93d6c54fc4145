// list_mentions and get_mention_analytics THROUGH THE API (HTTP → gateway → gRPC → mention service on the
// embedded store) at 10,000 and at 100,000 mentions in one project: p50/p95 per filter, sequential requests,
// and the ratio of the 100,000 figure to the 10,000 one (the aim: at most 1.5). Mentions come from the
// seeded generator (bench/mention-data.ts) and are written straight into the mention service's store while
// the all-in-one is stopped, then read through the restarted all-in-one: the import path is not measured here.
// Usage: node services/platform/test/ts-child.js bench/mention-api-bench.ts
//   BENCH_SAMPLES (list reads per filter, default 100), BENCH_ANALYTICS_SAMPLES (default 20),
//   BENCH_ONLY (lists | analytics: time only those reads), BENCH_CPU_PROF=<dir> (each start of the
//   all-in-one writes a V8 CPU profile there when it stops: one for the 10,000 reads, one for the 100,000)
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openEmbeddedStore } from "@earshot/platform";
import { openMentionCollections } from "../services/mention/src/store";
import { mentionGenerator } from "./mention-data";
import { percentile, runBench } from "./bench-support";

const repo = resolve(__dirname, "..");
const SIZES = [10_000, 100_000];
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const ANALYTICS_SAMPLES = Number(process.env.BENCH_ANALYTICS_SAMPLES ?? 20);
const PAGES_DEEP = 10;
const ONLY = process.env.BENCH_ONLY;
const PROFILE = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`] : [];

const LISTS: Array<[string, string]> = [
  ["no filter", ""],
  ["status done", "status=done"],
  ["source reddit", "source=reddit"],
  ["sentiment negative", "sentiment=negative"],
  ["keywordId (1 of 20)", "keywordId=kw_3"],
  ["groupId (1 of 3)", "groupId=kwg_1"],
  ["categoryId cat_2", "categoryId=cat_2"],
  ["categoryId none", "categoryId=none"],
  ["q (a word in ~10% of mentions)", "q=w8"],
  ["author (one handle)", "author=user42"],
  ["since/until (one week)", "since=2026-03-01T00:00:00Z&until=2026-03-08T00:00:00Z"],
  ["status open + source x + q", "status=open&source=x&q=w3"],
];

// The generated half-year ends on 2026-06-30: 30 days hold about 1/6 of the mentions, 90 days half.
const LAST_30 = "since=2026-05-31T00:00:00Z&until=2026-06-30T00:00:00Z";
const LAST_90 = "since=2026-04-01T00:00:00Z&until=2026-06-30T00:00:00Z";
const ANALYTICS: Array<[string, string]> = [
  ["30 days, by day", LAST_30],
  ["90 days, by day, groupBy source", `${LAST_90}&groupBy=source`],
  ["30 days, groupBy keyword", `${LAST_30}&groupBy=keyword`],
  ["30 days, groupBy category, source reddit", `${LAST_30}&groupBy=category&source=reddit`],
  ["90 days, by week, groupBy sentiment, q", `${LAST_90}&interval=week&groupBy=sentiment&q=w8`],
  ["90 days, groupBy status, status open", `${LAST_90}&groupBy=status&status=open`],
];

const startAllInOne = (dataDir: string): Promise<{ child: ChildProcess; base: string }> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...PROFILE, "services/platform/test/ts-child.js", "services/all-in-one/src/main.ts"], {
      cwd: repo,
      env: { ...process.env, EARSHOT_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", EARSHOT_RATE_LIMIT_PER_MINUTE: "1000000", EARSHOT_SIMULATORS: "off" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /Earshot is running at (http:\/\/\S+)/.exec(out);
      if (m) resolvePromise({ child, base: m[1] as string });
    });
    child.stderr?.on("data", (d: Buffer) => process.stderr.write(d));
    child.on("exit", (code) => reject(new Error(`the all-in-one exited ${code}`)));
  });

const stop = (child: ChildProcess) =>
  new Promise<void>((resolvePromise) => {
    child.removeAllListeners("exit");
    child.on("exit", () => resolvePromise());
    child.kill("SIGTERM");
  });


const timed = async (fn: () => Promise<void>, samples: number) => {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
};

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-mention-api-bench-"));
  let running: ChildProcess | undefined;
  try {
    let aio = await startAllInOne(dataDir);
    running = aio.child;
    const { apiKey } = JSON.parse(await readFile(join(dataDir, "bootstrap.json"), "utf8")) as { apiKey: string };
    const headers = { Authorization: `Bearer ${apiKey}` };
    const created = await fetch(`${aio.base}/api/v1/projects`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Benchmark" }),
    });
    const createdBody = (await created.json()) as { data?: { id: string; workspaceId: string } };
    if (!createdBody.data) throw new Error(`create_project answered ${created.status}: ${JSON.stringify(createdBody)}`);
    const project = createdBody.data;
    // The mention service learns of the project from its event; wait until it answers for it.
    for (let i = 0; (await fetch(`${aio.base}/api/v1/mentions?projectId=${project.id}`, { headers })).status !== 200; i++) {
      if (i > 200) throw new Error("the mention service never learned of the project");
      await new Promise((r) => setTimeout(r, 50));
    }
    const next = mentionGenerator(project.id, project.workspaceId);
    let stored = 0;
    const results = new Map<string, { p50: number; p95: number }>();
    for (const size of SIZES) {
      await stop(aio.child);
      running = undefined;
      const store = await openEmbeddedStore({ dir: join(dataDir, "mention") });
      const { mentions } = await openMentionCollections(store);
      while (stored < size) {
        const batch = Array.from({ length: Math.min(1000, size - stored) }, next);
        await mentions.insertMany(batch);
        stored += batch.length;
      }
      await store.close();
      aio = await startAllInOne(dataDir);
      running = aio.child;
      process.stdout.write(`${size} mentions stored\n`);
      const get = async (path: string) => {
        const res = await fetch(`${aio.base}${path}`, { headers });
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as { nextCursor?: string | null };
      };
      await get(`/api/v1/mentions?projectId=${project.id}&limit=25`);
      for (const [name, query] of ONLY === "analytics" ? [] : LISTS) {
        let cursor: string | null | undefined;
        let page = 0;
        const figures = await timed(async () => {
          const body = await get(`/api/v1/mentions?projectId=${project.id}&limit=25${query ? `&${query}` : ""}${cursor ? `&cursor=${cursor}` : ""}`);
          // Pages 1 to PAGES_DEEP, again and again: first pages and pages behind a cursor.
          page += 1;
          cursor = body.nextCursor && page < PAGES_DEEP ? body.nextCursor : undefined;
          if (!cursor) page = 0;
        }, SAMPLES);
        results.set(`${size}|list_mentions|${name}`, figures);
        process.stdout.write(`list_mentions ${name}: p50 ${figures.p50.toFixed(1)} ms p95 ${figures.p95.toFixed(1)} ms\n`);
      }
      for (const [name, query] of ONLY === "lists" ? [] : ANALYTICS) {
        const figures = await timed(async () => void (await get(`/api/v1/mentions/analytics?projectId=${project.id}&${query}`)), ANALYTICS_SAMPLES);
        results.set(`${size}|get_mention_analytics|${name}`, figures);
        process.stdout.write(`get_mention_analytics ${name}: p50 ${figures.p50.toFixed(1)} ms p95 ${figures.p95.toFixed(1)} ms\n`);
      }
    }
    const rows = [
      ...(ONLY === "analytics" ? [] : LISTS.map(([n]) => ["list_mentions", n])),
      ...(ONLY === "lists" ? [] : ANALYTICS.map(([n]) => ["get_mention_analytics", n])),
    ].map(([verb, name]) => {
      const small = results.get(`${SIZES[0]}|${verb}|${name}`) as { p50: number; p95: number };
      const large = results.get(`${SIZES[1]}|${verb}|${name}`) as { p50: number; p95: number };
      return `| ${verb} | ${name} | ${small.p50.toFixed(1)} / ${small.p95.toFixed(1)} ms | ${large.p50.toFixed(1)} / ${large.p95.toFixed(1)} ms | ${(large.p95 / small.p95).toFixed(2)} |`;
    });
    process.stdout.write(`\n| read | filter | 10,000: p50 / p95 | 100,000: p50 / p95 | p95 ratio |\n|---|---|---|---|---|\n${rows.join("\n")}\n`);
  } finally {
    if (running) await stop(running);
    await rm(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
