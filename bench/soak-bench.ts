// Memory under steady work: the all-in-one on a fresh data directory with its simulators (every source
// simulated, polled every BENCH_POLL_S seconds), 9 projects of 5 keywords made through the REST API, then
// BENCH_MINUTES of steady reads and triage writes through the REST API at about BENCH_RATE requests a
// second (BENCH_WORKERS loops, each bounded by the schedule; only to 127.0.0.1). Every 10 s it samples the
// process's RSS and its anonymous part (/proc) and V8's heap (the admin port's metrics, which the all-in-one
// serves with EARSHOT_METRICS_PORT); at each minute of BENCH_MARKS (5, 30 and 60 by default, and the last
// minute) it prints the RSS split into V8's heap (with the lowest heap used of that minute: the live heap
// after the minute's collections, not the garbage waiting for one), native memory and mapped files, then the
// mentions stored, the requests made and the load average. Which part grows says where to look: a heap
// snapshot diff for V8's heap, a native allocation profile for the rest.
//
// BENCH_HEAP_SNAPSHOTS=<dir> starts the all-in-one with --heapsnapshot-signal and writes a heap snapshot
// there at each mark (V8 collects garbage before writing one); `node bench/heap-summary.js a b` compares two.
// Writing a snapshot costs the process about as much memory again as its heap, which it keeps: the RSS
// of a run with snapshots is not the figure to quote.
//
// Usage: node services/platform/test/ts-child.js bench/soak-bench.ts (after make build).
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startChild, stopChild } from "./api-setup";
import { runBench, sleep } from "./bench-support";

const MINUTES = Number(process.env.BENCH_MINUTES ?? 60);
const MARKS = [...new Set([...(process.env.BENCH_MARKS ?? "5,30,60").split(",").map(Number).filter((m) => m > 0 && m < MINUTES), MINUTES])].sort((a, b) => a - b);
const RATE = Number(process.env.BENCH_RATE ?? 40);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
const POLL_S = Number(process.env.BENCH_POLL_S ?? 5);
const PROJECTS = 9;
const KEYWORDS = 5;
const SAMPLE_MS = 10_000;
const SNAPSHOTS = process.env.BENCH_HEAP_SNAPSHOTS ? resolve(process.env.BENCH_HEAP_SNAPSHOTS) : undefined;

const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(1).padStart(7);

/** A small seeded PRNG (mulberry32): the same requests in the same order every run. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** The process's resident memory (/proc), and the part of it that is anonymous (heaps, not mapped files). */
const residentOf = async (pid: number): Promise<{ rss: number; anon: number }> => {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon") };
};

/** V8's heap (used, and reserved from the system) and buffers outside it (`external`), from the admin port's metrics. */
const memoryOf = async (adminUrl: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> => {
  // A scrape may meet a kept-alive connection the admin port has just closed (after a heap snapshot held the
  // process for seconds): asked again on a new one.
  for (let attempt = 1; ; attempt++) {
    try {
      const text = await (await fetch(`${adminUrl}/metrics`)).text();
      const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
      return { heapUsed: metric("nodejs_heap_size_used_bytes"), heapTotal: metric("nodejs_heap_size_total_bytes"), external: metric("nodejs_external_memory_bytes") };
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
};

interface Project {
  id: string;
  categoryIds: string[];
  /** Mention ids seen in this project's lists, the triage writes' targets (newest first, at most 200). */
  mentionIds: string[];
}

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-soak-bench-"));
  if (SNAPSHOTS) await mkdir(SNAPSHOTS, { recursive: true });
  let earshot: ChildProcess | undefined;
  try {
    const started = await startChild(
      [...(SNAPSHOTS ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${SNAPSHOTS}`] : []), "services/all-in-one/dist/main.js"],
      { PORT: "0", EARSHOT_METRICS_PORT: "0", LOG_LEVEL: "warn", EARSHOT_DATA_DIR: dataDir, EARSHOT_POLL_INTERVAL_SECONDS: String(POLL_S), EARSHOT_RATE_LIMIT_PER_MINUTE: "1000000" },
      /Earshot is running at (http:\/\/\S+)[\s\S]*metrics: (http:\/\/\S+)\/metrics/,
    );
    earshot = started.child;
    const pid = earshot.pid as number;
    const base = `${started.match[1]}/api/v1`;
    const adminUrl = started.match[2] as string;
    const { apiKey } = JSON.parse(await readFile(join(dataDir, "bootstrap.json"), "utf8")) as { apiKey: string };
    const auth = { Authorization: `Bearer ${apiKey}` };
    const statuses = new Map<number, number>();
    let requests = 0;
    const call = async <T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; data: T }> => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      requests++;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      return { status: res.status, data: (res.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as { data: T }).data : undefined) as T };
    };
    const must = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await call<T>(method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}`);
      return res.data;
    };

    // The projects, each with five keywords on the simulated sources and two categories for triage.
    const projects: Project[] = [];
    for (let p = 0; p < PROJECTS; p++) {
      const { id } = await must<{ id: string }>("POST", "/projects", { name: `Soak ${p}` });
      for (let k = 0; k < KEYWORDS; k++) {
        await must("POST", "/keywords", { projectId: id, value: `Soakterm${p}x${k}`, sources: ["x", "reddit", "youtube"], aliases: [], excludedTerms: [], caseSensitive: false });
      }
      const categoryIds: string[] = [];
      for (const name of ["Praise", "Bug"]) categoryIds.push((await must<{ id: string }>("POST", "/categories", { projectId: id, name })).id);
      projects.push({ id, categoryIds, mentionIds: [] });
    }

    const mentionsStored = async () => (await must<{ limits: { mentionsThisMonth: { used: number } } }>("GET", "/usage")).limits.mentionsThisMonth.used;

    // The work: one request at a time per worker, drawn from a fixed mix, the workers together paced at RATE.
    const random = prng(20261128);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    let writes = 0;
    const step = async () => {
      const project = pick(projects);
      const q = `projectId=${project.id}`;
      const target = project.mentionIds.length > 0 ? pick(project.mentionIds) : undefined;
      const r = random();
      if (r < 0.25) {
        const listed = await call<Array<{ id: string }>>("GET", `/mentions?${q}&limit=25`);
        if (listed.status === 200) project.mentionIds = [...new Set([...listed.data.map((m) => m.id), ...project.mentionIds])].slice(0, 200);
      } else if (r < 0.35) await call("GET", `/mentions?${q}&status=${pick(["open", "done", "follow_up"])}&limit=25`);
      else if (r < 0.42) await call("GET", `/mentions?${q}&sentiment=${pick(["positive", "neutral", "negative"])}&source=${pick(["x", "reddit", "youtube"])}`);
      else if (r < 0.5) await call("GET", `/mentions/analytics?${q}${random() < 0.5 ? "&groupBy=source" : ""}`);
      else if (r < 0.6 && target) await call("GET", `/mentions/${target}`);
      else if (r < 0.66) await call("GET", `/keywords?${q}`);
      else if (r < 0.7) await call("GET", `/categories?${q}`);
      else if (r < 0.75) await call("GET", `/projects/${project.id}`);
      else if (r < 0.78) await call("GET", "/projects");
      else if (r < 0.8) await call("GET", "/usage");
      else if (target && r < 0.9) await call("PATCH", `/mentions/${target}`, { status: pick(["open", "done", "follow_up"]) }, `soak-status-${writes++}`);
      else if (target) await call("PUT", `/mentions/${target}/category`, { categoryId: pick([...project.categoryIds, null]) }, `soak-category-${writes++}`);
      else await call("GET", `/mentions?${q}&limit=25`);
    };

    const startedAt = Date.now();
    const endAt = startedAt + MINUTES * 60_000;
    type Sample = { at: number; rss: number; anon: number; heapUsed: number; heapTotal: number; external: number };
    const samples: Sample[] = [];
    const sample = async () => samples.push({ at: Date.now(), ...(await residentOf(pid)), ...(await memoryOf(adminUrl)) });
    process.stdout.write(
      `soak: all-in-one with simulators (poll every ${POLL_S} s), ${PROJECTS} projects x ${KEYWORDS} keywords, ${WORKERS} workers at ~${RATE} requests/s for ${MINUTES} min; node ${process.version}\n`,
    );
    // RSS is V8's heap (reserved), the rest of the anonymous memory (native: SQLite's caches and statements,
    // buffers, malloc), and mapped files (code, SQLite's shared memory).
    process.stdout.write(
      "minute       RSS  V8 heap (used*)    native   files  external   mentions   requests (non-2xx)   load average 1/5/15\n",
    );

    let next = startedAt;
    const worker = async () => {
      while (Date.now() < endAt) {
        // The shared schedule: each step takes the next slot, so the workers together keep RATE, never more.
        const slot = (next = Math.max(next + 1000 / RATE, Date.now()));
        if (slot > Date.now()) await sleep(slot - Date.now());
        if (Date.now() >= endAt) return;
        await step();
      }
    };
    const sampler = async () => {
      let markIndex = 0;
      for (let at = startedAt + SAMPLE_MS; markIndex < MARKS.length; at += SAMPLE_MS) {
        await sleep(Math.max(0, at - Date.now()));
        await sample();
        const mark = MARKS[markIndex] as number;
        if (at - startedAt < mark * 60_000) continue;
        markIndex++;
        const minute = samples.filter((s) => s.at > at - 60_000);
        const last = samples[samples.length - 1] as Sample;
        const heapUsed = Math.min(...minute.map((s) => s.heapUsed));
        const non2xx = [...statuses].filter(([s]) => s >= 300).reduce((n, [, c]) => n + c, 0);
        const load = loadavg().map((l) => l.toFixed(2)).join(" / ");
        process.stdout.write(
          `${String(mark).padStart(6)} ${mb(last.rss)}  ${mb(last.heapTotal)} (${mb(heapUsed).trim()}) ${mb(last.anon - last.heapTotal)} ${mb(last.rss - last.anon)} ${mb(last.external)}   ${String(await mentionsStored()).padStart(8)}   ${String(requests).padStart(8)} (${non2xx})         ${load}\n`,
        );
        if (SNAPSHOTS) await snapshot(pid, adminUrl, mark);
      }
    };
    await Promise.all([...Array.from({ length: WORKERS }, worker), sampler()]);
    process.stdout.write("(MB; * the lowest heap used of the minute: what was live after its collections)\n");

    const first = samples.find((s) => s.at - startedAt >= (MARKS[0] as number) * 60_000 - SAMPLE_MS / 2) ?? samples[0];
    const last = samples[samples.length - 1];
    if (first && last && last.at > first.at) {
      const perMinute = ((last.rss - first.rss) / MB / (last.at - first.at)) * 60_000;
      process.stdout.write(`RSS from minute ${Math.round((first.at - startedAt) / 60_000)} to the end: ${perMinute >= 0 ? "+" : ""}${perMinute.toFixed(2)} MB a minute\n`);
    }
    process.stdout.write(`answers by status: ${[...statuses].sort(([a], [b]) => a - b).map(([s, c]) => `${s} x ${c}`).join(", ")}\n`);
  } finally {
    if (earshot) await stopChild(earshot);
    await rm(dataDir, { recursive: true, force: true });
  }
};

/** Asks the all-in-one for a heap snapshot (SIGUSR2) and waits until the file is complete. */
const snapshot = async (pid: number, adminUrl: string, mark: number) => {
  const dir = SNAPSHOTS as string;
  const before = new Set(await readdir(dir));
  process.kill(pid, "SIGUSR2");
  for (;;) {
    await sleep(1000);
    const file = (await readdir(dir)).find((f) => f.endsWith(".heapsnapshot") && !before.has(f));
    if (!file) continue;
    // Node writes the snapshot on the main thread in one go: once the admin port answers again, it is complete.
    await memoryOf(adminUrl);
    process.stdout.write(`  heap snapshot at minute ${mark}: ${join(dir, file)}\n`);
    return;
  }
};

runBench(main);
