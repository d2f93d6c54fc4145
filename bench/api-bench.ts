// REST reads through Earshot versus a bare express app serving the same JSON from memory, in one run,
// 50 connections: GET /api/v1/projects/{id}, a page of 20 keywords, and list_mentions (limit 25) on a
// project holding BENCH_MENTIONS (10,000) mentions. Each Earshot shape (BENCH_SHAPES: in-process,
// loopback, split; see api-setup.ts) is measured right after the bare app on the same route, so each
// ratio compares two runs a few seconds apart. BENCH_ROUTES picks routes; BENCH_SECONDS (10) the length.
// Usage: make bench (or node services/platform/test/ts-child.js bench/api-bench.ts after make build).
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONNECTIONS, DURATION, measure, row, type Shape, SHAPES, seed, settle, startChild, startShape, stopChild } from "./api-setup";
import { runBench } from "./bench-support";

const MENTIONS = Number(process.env.BENCH_MENTIONS ?? 10_000);

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-bench-"));
  const bares: ChildProcess[] = [];
  try {
    const shapes = (process.env.BENCH_SHAPES ?? SHAPES.join(",")).split(",") as Shape[];
    const routes = (process.env.BENCH_ROUTES ?? "project,keywords,mentions").split(",");
    // Seed once, through the first shape, then restart on the same data directory for each shape.
    let running = await startShape(shapes[0] as Shape, dataDir);
    const { apiKey, projectId } = await seed(running.base, dataDir, MENTIONS);
    const auth = { Authorization: `Bearer ${apiKey}` };
    const paths: Record<string, string> = {
      project: `/api/v1/projects/${projectId}`,
      keywords: `/api/v1/keywords?projectId=${projectId}`,
      mentions: `/api/v1/mentions?projectId=${projectId}&limit=25`,
    };
    const bareUrls = new Map<string, { url: string; bytes: number; child: ChildProcess }>();
    for (const route of routes) {
      const path = paths[route];
      if (!path) throw new Error(`unknown route ${route}; use ${Object.keys(paths).join(", ")}`);
      const res = await fetch(`${running.base}${path}`, { headers: auth });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body}`);
      const bare = await startChild(["bench/bare-app.js"], { BARE_BODY: body }, /listening (\d+)/);
      bares.push(bare.child);
      bareUrls.set(route, { url: `http://127.0.0.1:${bare.match[1]}${path}`, bytes: body.length, child: bare.child });
    }
    process.stdout.write(`REST reads — ${CONNECTIONS} connections, ${DURATION} s each after 3 s of warm-up, node ${process.version}, ${MENTIONS} mentions in the project\n`);
    const table: string[] = [];
    for (const [i, shape] of shapes.entries()) {
      if (i > 0) running = await startShape(shape, dataDir);
      // The seed's events (mention.created to every consumer) are handled before anything is measured.
      await settle(running.children);
      for (const route of routes) {
        const path = paths[route] as string;
        const bare = bareUrls.get(route) as { url: string; bytes: number; child: ChildProcess };
        const bareResult = await measure(bare.url, {}, [bare.child]);
        const earshot = await measure(`${running.base}${path}`, { headers: auth }, running.children);
        const ratio = earshot.requests.average / bareResult.requests.average;
        const cpuRatio = bareResult.cpuMsPerRequest / earshot.cpuMsPerRequest;
        process.stdout.write(
          `\n${shape}: GET ${path} (${bare.bytes} bytes)\n${row("bare express (JSON from memory)", bareResult)}\n${row(`earshot ${shape}`, earshot)}\nratio earshot / bare: ${ratio.toFixed(2)} (throughput), ${cpuRatio.toFixed(2)} (bare CPU per request / earshot's)\n`,
        );
        const us = (r: { cpuMsPerRequest: number }) => (r.cpuMsPerRequest * 1000).toFixed(0);
        table.push(
          `| ${route} | ${shape} | ${bareResult.requests.average.toFixed(0)} | ${earshot.requests.average.toFixed(0)} | **${ratio.toFixed(2)}** | ${earshot.latency.p50} ms | ${earshot.latency.p99} ms | ${us(bareResult)} / ${us(earshot)} µs = ${cpuRatio.toFixed(2)} | ${earshot.non2xx + earshot.errors} |`,
        );
      }
      await running.stop();
    }
    process.stdout.write(`\n| route | shape | bare req/s | earshot req/s | ratio | p50 | p99 | CPU per request, bare / earshot | non-2xx + errors |\n|---|---|---|---|---|---|---|---|---|\n${table.join("\n")}\n`);
  } finally {
    for (const c of bares) await stopChild(c);
    await rm(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
