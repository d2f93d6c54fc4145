// MCP tools/call versus the same REST reads, through the all-in-one (BENCH_SHAPE, in-process by
// default), on a project holding BENCH_MENTIONS (10,000) mentions:
// - sequential: the MCP SDK client over Streamable HTTP (connected once, tools listed once, as an agent
//   does) calling get_project and list_mentions (limit 25), alternating with fetch() of the same REST
//   reads, BENCH_CALLS (300) of each; median and p99 from outside, and the ratio MCP / REST. Beside them,
//   fetch() of the JSON-RPC POST the SDK client sends, read with res.json(): the server's share of the
//   MCP latency without the SDK client's own work (its schema checks of every message and result).
// - under load: autocannon, 50 connections, the tools/call JSON-RPC request the SDK client sends (POST
//   /mcp) against the REST GET, each run right after the other; throughput ratio MCP / REST.
// BENCH_ROUNDS=n (1): the two loads alternate n times, DURATION / n seconds each, so that both see the
// same share of whatever else the machine runs (their req/s and processor time are summed over the rounds).
// BENCH_READS=get_project (or list_mentions) runs one read only, e.g. for a CPU profile of it (BENCH_CPU_PROF).
// Usage: make bench (or node services/platform/test/ts-child.js bench/mcp-bench.ts after make build).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { ChildProcess } from "node:child_process";
import { CONNECTIONS, cpuSeconds, DURATION, load, measure, type Shape, seed, settle, startShape } from "./api-setup";
import { runBench } from "./bench-support";

const MENTIONS = Number(process.env.BENCH_MENTIONS ?? 10_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));

interface Target {
  url: string;
  init: Parameters<typeof load>[1];
}
interface LoadSummary {
  rps: number;
  /** The highest p99 of the rounds. */
  p99: number;
  cpuMsPerRequest: number;
  failures: number;
}

/** Loads `targets` one after the other, ROUNDS times over (one warm-up each first). */
const alternate = async (targets: readonly Target[], servers: readonly ChildProcess[]): Promise<LoadSummary[]> => {
  if (ROUNDS === 1) {
    const results = [];
    for (const t of targets) results.push(await measure(t.url, t.init, servers));
    return results.map((r) => ({ rps: r.requests.average, p99: r.latency.p99, cpuMsPerRequest: r.cpuMsPerRequest, failures: r.non2xx + r.errors }));
  }
  for (const t of targets) await load(t.url, t.init, 3);
  const totals = targets.map(() => ({ requests: 0, seconds: 0, cpuMs: 0, p99: 0, failures: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const before = cpuSeconds(servers);
      const r = await load(t.url, t.init, DURATION / ROUNDS);
      const total = totals[i] as (typeof totals)[number];
      total.cpuMs += (cpuSeconds(servers) - before) * 1000;
      total.requests += r.requests.total;
      total.seconds += DURATION / ROUNDS;
      total.p99 = Math.max(total.p99, r.latency.p99);
      total.failures += r.non2xx + r.errors;
    }
  }
  return totals.map((t) => ({ rps: t.requests / t.seconds, p99: t.p99, cpuMsPerRequest: t.cpuMs / Math.max(1, t.requests), failures: t.failures }));
};

const row = (name: string, r: LoadSummary) =>
  `${name.padEnd(40)} ${r.rps.toFixed(0).padStart(7)} req/s   p99 ${String(r.p99).padStart(4)} ms   ${(r.cpuMsPerRequest * 1000).toFixed(0).padStart(5)} CPU µs/request   failed ${r.failures}`;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
};

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-bench-"));
  const shape = (process.env.BENCH_SHAPE ?? "in-process") as Shape;
  const running = await startShape(shape, dataDir);
  try {
    const { apiKey, projectId } = await seed(running.base, dataDir, MENTIONS);
    const auth = { Authorization: `Bearer ${apiKey}` };
    await settle(running.children);
    const only = process.env.BENCH_READS?.split(",");
    const reads = [
      { name: "get_project", tool: { name: "get_project", arguments: { projectId } }, rest: `/api/v1/projects/${projectId}` },
      { name: "list_mentions", tool: { name: "list_mentions", arguments: { projectId, limit: 25 } }, rest: `/api/v1/mentions?projectId=${projectId}&limit=25` },
    ].filter((read) => !only || only.includes(read.name));

    const client = new Client({ name: "earshot-bench", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.base}/mcp`), { requestInit: { headers: auth } }));
    await client.listTools();
    process.stdout.write(`MCP versus REST (${shape}) — node ${process.version}, ${MENTIONS} mentions in the project\n`);
    const table: string[] = [];
    const mcpHeaders = {
      ...auth,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": LATEST_PROTOCOL_VERSION,
    };
    for (const read of reads) {
      const rest: number[] = [];
      const mcp: number[] = [];
      const raw: number[] = [];
      const rawBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: read.tool });
      for (let i = 0; i < CALLS + 20; i++) {
        let t = performance.now();
        const res = await fetch(`${running.base}${read.rest}`, { headers: auth });
        const body = (await res.json()) as unknown;
        if (res.status !== 200) throw new Error(`${read.rest} answered ${res.status}: ${JSON.stringify(body)}`);
        if (i >= 20) rest.push(performance.now() - t);
        t = performance.now();
        const result = await client.callTool(read.tool);
        if (result.isError) throw new Error(`${read.name} failed: ${JSON.stringify(result.content)}`);
        if (i >= 20) mcp.push(performance.now() - t);
        t = performance.now();
        const posted = await fetch(`${running.base}/mcp`, { method: "POST", headers: mcpHeaders, body: rawBody });
        const answer = (await posted.json()) as { result?: { isError?: boolean } };
        if (posted.status !== 200 || !answer.result || answer.result.isError) throw new Error(`POST /mcp ${read.name} answered ${posted.status}: ${JSON.stringify(answer).slice(0, 300)}`);
        if (i >= 20) raw.push(performance.now() - t);
      }
      const r = summary(rest);
      const m = summary(mcp);
      const p = summary(raw);
      process.stdout.write(
        `\nsequential, ${CALLS} calls each: ${read.name}\n  REST fetch          p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms\n  MCP SDK tools/call  p50 ${m.p50.toFixed(2)} ms   p99 ${m.p99.toFixed(2)} ms\n  MCP POST by fetch   p50 ${p.p50.toFixed(2)} ms   p99 ${p.p99.toFixed(2)} ms\n  ratio MCP / REST (p50): ${(m.p50 / r.p50).toFixed(2)} with the SDK client, ${(p.p50 / r.p50).toFixed(2)} by fetch\n`,
      );
      table.push(`| ${read.name} | sequential (SDK client vs fetch) | p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms | p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms | ${(m.p50 / r.p50).toFixed(2)} (latency) |`);
      table.push(`| ${read.name} | sequential (the same POST by fetch vs fetch) | | p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms | ${(p.p50 / r.p50).toFixed(2)} (latency) |`);
    }
    await client.close();

    for (const read of reads) {
      const [restLoad, mcpLoad] = (await alternate(
        [
          { url: `${running.base}${read.rest}`, init: { headers: auth } },
          { url: `${running.base}/mcp`, init: { method: "POST", headers: mcpHeaders, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: read.tool }) } },
        ],
        running.children,
      )) as [LoadSummary, LoadSummary];
      const ratio = mcpLoad.rps / restLoad.rps;
      process.stdout.write(
        `\nunder load, ${CONNECTIONS} connections, ${DURATION} s (${ROUNDS} rounds): ${read.name}\n${row("REST GET", restLoad)}\n${row("MCP tools/call (POST /mcp)", mcpLoad)}\nthroughput ratio MCP / REST: ${ratio.toFixed(2)}\n`,
      );
      const us = (r: LoadSummary) => (r.cpuMsPerRequest * 1000).toFixed(0);
      table.push(
        `| ${read.name} | ${CONNECTIONS} connections (autocannon) | ${restLoad.rps.toFixed(0)} req/s, p99 ${restLoad.p99} ms, ${us(restLoad)} CPU µs/req | ${mcpLoad.rps.toFixed(0)} req/s, p99 ${mcpLoad.p99} ms, ${us(mcpLoad)} CPU µs/req | ${ratio.toFixed(2)} (throughput), ${(restLoad.cpuMsPerRequest / mcpLoad.cpuMsPerRequest).toFixed(2)} (REST CPU / MCP CPU) |`,
      );
    }
    process.stdout.write(`\n| read | how | REST | MCP | ratio MCP / REST |\n|---|---|---|---|---|\n${table.join("\n")}\n`);
  } finally {
    await running.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
