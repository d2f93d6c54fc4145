// What the API and MCP benchmarks share: starting Earshot in one of its shapes on a data directory,
// seeding one project (20 keywords, N mentions), and autocannon runs.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { CALLER_SIGNING_KEY_FILE, createGrpcClient, readCallKeys } from "@earshot/platform";
import { commonV1, mentionV1 } from "@earshot/proto";
import { grpcAddrVar } from "@earshot/registry";
import { cpuSecondsOf } from "./bench-support";

export const repo = resolve(__dirname, "..");
export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = 50;

/**
 * - `in-process`: the all-in-one, its gateway calling the services beside it through the in-process channel (the default)
 * - `loopback`: the all-in-one with EARSHOT_IN_PROCESS_CALLS=off, every call a loopback gRPC hop
 * - `split`: the gateway in a process of its own, calling the services (hosted by an all-in-one) over loopback gRPC
 */
export type Shape = "in-process" | "loopback" | "split";
export const SHAPES: readonly Shape[] = ["in-process", "loopback", "split"];

export const startChild = (args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolvePromise({ child, match: m });
    });
    child.stderr?.on("data", (d: Buffer) => process.stderr.write(d));
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}`)));
  });

export const stopChild = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
};

export interface RunningShape {
  base: string;
  children: ChildProcess[];
  stop(): Promise<void>;
}

const BASE_ENV = { PORT: "0", LOG_LEVEL: "warn", EARSHOT_RATE_LIMIT_PER_MINUTE: "1000000", EARSHOT_SIMULATORS: "off" };

/** Starts `shape` on `dataDir`; BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the process serving HTTP there. */
export const startShape = async (shape: Shape, dataDir: string): Promise<RunningShape> => {
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF, shape)}`] : [];
  const allInOne = await startChild(
    [...(shape === "split" ? [] : profile), "services/all-in-one/dist/main.js"],
    { ...BASE_ENV, EARSHOT_DATA_DIR: dataDir, EARSHOT_IN_PROCESS_CALLS: shape === "in-process" ? "on" : "off" },
    /Earshot is running at (http:\/\/\S+)/,
  );
  const children = [allInOne.child];
  const stop = async () => {
    for (const c of children.reverse()) await stopChild(c);
  };
  if (shape !== "split") return { base: allInOne.match[1] as string, children, stop };
  const services = JSON.parse(await readFile(join(dataDir, "services.json"), "utf8")) as Record<string, string>;
  const addresses = Object.fromEntries(Object.entries(services).filter(([name]) => name !== "gateway").map(([name, address]) => [grpcAddrVar(name), address]));
  const gatewayDir = await mkdtemp(join(tmpdir(), "earshot-bench-gateway-"));
  const gateway = await startChild(
    [...profile, "services/edge/dist/gateway-main.js"],
    // The gateway of another process signs its calls with the all-in-one's key, as a cluster's gateways do.
    { ...BASE_ENV, LOG_LEVEL: "info", EARSHOT_DATA_DIR: gatewayDir, EARSHOT_SURFACE: process.env.BENCH_SURFACE ?? "rest", EARSHOT_CALLER_SIGNING_KEY_FILE: join(dataDir, CALLER_SIGNING_KEY_FILE), ...addresses },
    /"url":"(http:\/\/[^"]+)"[^\n]*gateway listening/,
  );
  children.push(gateway.child);
  return { base: gateway.match[1] as string, children, stop };
};

export interface Seeded {
  apiKey: string;
  projectId: string;
  mentions: number;
}

/** A project with 20 keywords and `mentions` mentions of the first, ingested through the mention service. */
export const seed = async (base: string, dataDir: string, mentions: number): Promise<Seeded> => {
  const { apiKey } = JSON.parse(await readFile(join(dataDir, "bootstrap.json"), "utf8")) as { apiKey: string };
  const auth = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
  const created = await fetch(`${base}/api/v1/projects`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Benchmark" }) });
  const projectId = ((await created.json()) as { data: { id: string } }).data.id;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${base}/api/v1/keywords`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ projectId, value: `Brand ${i}`, sources: ["x", "reddit"], aliases: [`brand${i}`], excludedTerms: ["spam"], filters: {}, caseSensitive: false }),
    });
    if (res.status !== 201) throw new Error(`create_keyword answered ${res.status}: ${await res.text()}`);
  }
  const services = JSON.parse(await readFile(join(dataDir, "services.json"), "utf8")) as Record<string, string>;
  // Its services take only calls signed with the keys in its data directory, as the operator CLI signs them.
  const keys = await readCallKeys(dataDir);
  const mention = createGrpcClient(mentionV1.MentionServiceClient, services.mention as string, { ...keys, deadlineMs: 60_000 });
  const post = (i: number): mentionV1.Post => ({
    projectId,
    source: i % 3 === 0 ? commonV1.Source.SOURCE_REDDIT : commonV1.Source.SOURCE_X,
    sourceId: `bench-${i}`,
    url: `https://x.com/user${i % 500}/status/bench-${i}`,
    text: `Brand 0 post number ${i}: the new release is ${i % 2 ? "great" : "slow"} and support ${i % 5 ? "answered" : "never answered"}`,
    author: { id: `u${i % 500}`, handle: `user${i % 500}`, name: `User ${i % 500}` },
    publishedAt: new Date(Date.UTC(2026, 10, 1) + i * 60_000),
  });
  // The keyword events reach the mention service through the outbox and the bus: wait until it matches.
  for (let attempt = 0; (await mention.client.ingestPosts({ posts: [post(0)] })).created !== 1; attempt++) {
    if (attempt > 600) throw new Error("the mention service never learned the keywords");
    await new Promise((r) => setTimeout(r, 100));
  }
  for (let from = 1; from < mentions; from += 500) {
    await mention.client.ingestPosts({ posts: Array.from({ length: Math.min(500, mentions - from) }, (_, k) => post(from + k)) });
  }
  mention.close();
  return { apiKey, projectId, mentions };
};

/** Processor seconds (user + system) the processes have used so far, from /proc (Linux). */
export const cpuSeconds = (children: readonly ChildProcess[]): number => children.reduce((sum, c) => sum + cpuSecondsOf(c.pid as number), 0);

/** Waits until the processes are idle (under 5% of a core over half a second), e.g. after seeding. */
export const settle = async (children: readonly ChildProcess[], maxMs = 120_000) => {
  const until = Date.now() + maxMs;
  for (let before = cpuSeconds(children); Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuSeconds(children);
    if (now - before < 0.025) return;
    before = now;
  }
};

export type Load = autocannon.Result & { cpuMsPerRequest: number };

type Init = { headers?: Record<string, string>; method?: "GET" | "POST"; body?: string };

export const load = (url: string, init: Init, seconds = DURATION) =>
  new Promise<autocannon.Result>((resolvePromise, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: seconds, ...init }, (err, result) => (err ? reject(err) : resolvePromise(result)));
  });

/**
 * A warm-up then the measured run, with the processor time the serving processes spent per request:
 * on a machine shared with other work, throughput follows the load but the cost per request much less.
 */
export const measure = async (url: string, init: Init, servers: readonly ChildProcess[]): Promise<Load> => {
  await load(url, init, 3);
  const before = cpuSeconds(servers);
  const result = await load(url, init);
  const cpuMs = (cpuSeconds(servers) - before) * 1000;
  return Object.assign(result, { cpuMsPerRequest: cpuMs / Math.max(1, result.requests.total) });
};

export const row = (name: string, r: Load) =>
  `${name.padEnd(40)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(3)} ms   ${(r.cpuMsPerRequest * 1000).toFixed(0).padStart(5)} CPU µs/request   non-2xx ${r.non2xx}   errors ${r.errors}`;
