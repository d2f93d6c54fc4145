// A year of mentions on the embedded default, end to end: one all-in-one (SQLite store, in-process bus on
// disk), one project, one keyword, and N posts that all match it, imported with `earshot posts import` as an
// operator would, in three steps (to N/100, N/10 and N; by default 10,000, 100,000 and 1,000,000). After each
// step: the import rate of the step, the all-in-one's RSS, the data directory's size on disk, and the p95 of
// three reads through the REST API whose answers do not grow with the data (so any growth is the store's):
// list_mentions (newest 25), get_mention_analytics (one day, by source and day) and the NDJSON export of that
// day. The import is timed as the CLI sees it (until IngestPosts has stored the last batch); the consumers of
// the mention.created events run behind it, and the reads wait until they are done (the process idle).
// Then a restart: time from start to ready, RSS, and the reads again.
//
// Posts are published one every 25 s going back from now, so the newest day always holds the same 3,456
// mentions, whatever N.
// Usage: node services/platform/test/ts-child.js bench/scale-bench.ts [N]   (after make build; default 1,000,000)
// BENCH_CPU_PROF=<dir>: the all-in-one and the CLI write CPU profiles there (--cpu-prof).
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { commonV1, mentionV1 } from "@earshot/proto";
import { createGrpcClient, readCallKeys } from "@earshot/platform";
import { cpuSecondsOf, runBench } from "./bench-support";

const repo = resolve(__dirname, "..");
const N = Number(process.argv[2] ?? process.env.BENCH_MENTIONS ?? 1_000_000);
const STEPS = [Math.round(N / 100), Math.round(N / 10), N];
const SPACING_MS = 25_000;
const DAY_MS = 24 * 3600 * 1000;
const SAMPLES = { list: 40, analytics: 15, export: 15 };
const PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const NOW = Date.now() - 60_000;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] as number;

const WORDS = "the new launch update price phone app release today review service support customer team product feature week love great slow fast problem fixed works order shipping".split(" ");

const postLine = (i: number): string => {
  const words = Array.from({ length: 10 + (i % 17) }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]);
  words.splice(i % words.length, 0, i % 2 ? "Acme" : "acme");
  const source = i % 3 === 0 ? "reddit" : "x";
  return JSON.stringify({
    source,
    sourceId: `scale-${i}`,
    url: source === "x" ? `https://x.com/user${i % 5000}/status/${i}` : `https://www.reddit.com/r/tech/comments/scale${i}/`,
    ...(source === "reddit" ? { title: words.slice(0, 6).join(" ") } : {}),
    text: words.join(" "),
    author: { id: `u${i % 5000}`, handle: `user${i % 5000}`, name: `User ${i % 5000}`, followers: i % 100_000 },
    publishedAt: new Date(NOW - i * SPACING_MS).toISOString(),
    lang: "en",
  });
};

const writePosts = async (file: string, from: number, to: number) => {
  const out = createWriteStream(file);
  for (let i = from; i < to; i++) if (!out.write(`${postLine(i)}\n`)) await once(out, "drain");
  out.end();
  await once(out, "finish");
};

const profArgs = (name: string) => (PROF ? ["--cpu-prof", `--cpu-prof-dir=${PROF}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : []);

interface Running {
  child: ChildProcess;
  base: string;
  readyMs: number;
}

const startEarshot = (dataDir: string): Promise<Running> =>
  new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...profArgs("all-in-one"), "services/all-in-one/dist/main.js"], {
      cwd: repo,
      env: { ...process.env, EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "warn", EARSHOT_RATE_LIMIT_PER_MINUTE: "1000000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /Earshot is running at (http:\/\/\S+)/.exec(out);
      if (m) resolvePromise({ child, base: m[1] as string, readyMs: performance.now() - started });
    });
    child.stderr?.on("data", (d: Buffer) => process.stderr.write(d));
    child.on("exit", (code) => reject(new Error(`the all-in-one exited ${code}`)));
  });

const stopEarshot = async (running: Running) => {
  running.child.removeAllListeners("exit");
  const exited = once(running.child, "exit");
  running.child.kill("SIGTERM");
  await exited;
};

const rssOf = async (pid: number): Promise<number> => {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
};

/** Seconds to wait at most for the consumers to catch up before the reads (BENCH_SETTLE_S, default 60). */
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 60);

/**
 * Waits until the all-in-one is done with what an import left behind (the consumers of mention.created run
 * behind the import): until it uses under 5% of a core for two seconds in a row, or SETTLE_S have passed.
 * Returns the seconds waited, negative when it gave up (the reads then run beside the consumers).
 */
const settle = async (pid: number): Promise<number> => {
  const started = performance.now();
  let quiet = 0;
  let before = cpuSecondsOf(pid);
  while (quiet < 2) {
    if (performance.now() - started > SETTLE_S * 1000) return -(performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    const now = cpuSecondsOf(pid);
    quiet = now - before < 0.05 ? quiet + 1 : 0;
    before = now;
  }
  return (performance.now() - started) / 1000;
};

const dirSize = async (dir: string): Promise<number> => {
  let total = 0;
  for (const d of await readdir(dir, { withFileTypes: true })) total += d.isDirectory() ? await dirSize(join(dir, d.name)) : (await stat(join(dir, d.name))).size;
  return total;
};

const runCliImport = (dataDir: string, projectId: string, file: string): Promise<{ ms: number; out: string; code: number | null }> =>
  new Promise((resolvePromise) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...profArgs("cli"), "services/cli/dist/cli.js", "posts", "import", "--project", projectId, "--file", file], {
      cwd: repo,
      env: { ...process.env, EARSHOT_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => resolvePromise({ ms: performance.now() - started, out, code }));
  });

const main = async () => {
  if (PROF) await mkdir(PROF, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-scale-bench-"));
  const postsDir = await mkdtemp(join(tmpdir(), "earshot-scale-posts-"));
  let running: Running | undefined;
  const rows: string[] = [];
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    running = await startEarshot(dataDir);
    const { apiKey } = JSON.parse(await readFile(join(dataDir, "bootstrap.json"), "utf8")) as { apiKey: string };
    const auth = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
    const call = async (path: string, init: RequestInit = {}, accept = "application/json"): Promise<string> => {
      const res = await fetch(`${(running as Running).base}/api/v1${path}`, { ...init, headers: { ...auth, Accept: accept } });
      const body = await res.text();
      if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path} answered ${res.status}: ${body.slice(0, 300)}`);
      return body;
    };
    const project = (JSON.parse(await call("/projects", { method: "POST", body: JSON.stringify({ name: "Scale benchmark" }) })) as { data: { id: string } }).data;
    await call("/keywords", { method: "POST", body: JSON.stringify({ projectId: project.id, value: "Acme", sources: ["x", "reddit"] }) });

    // The keyword reaches the mention service by event: wait until a probe post matches.
    const services = JSON.parse(await readFile(join(dataDir, "services.json"), "utf8")) as Record<string, string>;
    // Its services take only calls signed with the keys in its data directory, as the operator CLI signs them.
    const keys = await readCallKeys(dataDir);
    const mention = createGrpcClient(mentionV1.MentionServiceClient, services.mention as string, keys);
    for (let attempt = 0; ; attempt++) {
      const probe: mentionV1.Post = {
        projectId: project.id,
        source: commonV1.Source.SOURCE_X,
        sourceId: `probe-${attempt}`,
        url: "https://x.com/probe/status/1",
        text: "probe acme",
        author: { id: "probe", handle: "probe", name: "Probe" },
        publishedAt: new Date(NOW - 400 * DAY_MS),
      };
      if ((await mention.client.ingestPosts({ posts: [probe] })).created === 1) break;
      if (attempt > 600) throw new Error("the mention service never learned the keyword");
      await new Promise((r) => setTimeout(r, 100));
    }
    mention.close();

    const day = `since=${new Date(NOW - DAY_MS).toISOString()}&until=${new Date(NOW + 1000).toISOString()}`;
    const reads = async (label: string) => {
      const time = async (n: number, fn: () => Promise<unknown>) => {
        await fn();
        const xs: number[] = [];
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          await fn();
          xs.push(performance.now() - t);
        }
        return p95(xs);
      };
      const list = await time(SAMPLES.list, () => call(`/mentions?projectId=${project.id}&limit=25`));
      const analytics = await time(SAMPLES.analytics, () => call(`/mentions/analytics?projectId=${project.id}&interval=day&groupBy=source&${day}`));
      let exported = 0;
      const exp = await time(SAMPLES.export, async () => {
        exported = (await call(`/mentions/export?projectId=${project.id}&format=ndjson&${day}`, {}, "application/x-ndjson")).trim().split("\n").length;
      });
      say(`  ${label}: list_mentions p95 ${list.toFixed(1)} ms, analytics (1 day) p95 ${analytics.toFixed(1)} ms, export (1 day, ${exported} mentions) p95 ${exp.toFixed(1)} ms`);
      return { list, analytics, exp };
    };

    say(`node ${process.version}; ${N.toLocaleString("en-US")} posts in steps ${STEPS.map((s) => s.toLocaleString("en-US")).join(", ")}; idle RSS ${mb(await rssOf(running.child.pid as number))}`);
    let done = 0;
    let importMs = 0;
    let last = { list: 0, analytics: 0, exp: 0 };
    let first: typeof last | undefined;
    for (const step of STEPS) {
      const file = join(postsDir, `posts-${step}.jsonl`);
      await writePosts(file, done, step);
      const run = await runCliImport(dataDir, project.id, file);
      if (run.code !== 0) throw new Error(`the import exited ${run.code}: ${run.out}`);
      await rm(file);
      importMs += run.ms;
      const rate = ((step - done) / run.ms) * 1000;
      done = step;
      const drained = await settle(running.child.pid as number);
      const rss = await rssOf(running.child.pid as number);
      const disk = await dirSize(dataDir);
      say(
        drained >= 0
          ? `  the consumers of the step's events finished ${drained.toFixed(0)} s after the import`
          : `  the consumers of the step's events were still at work ${(-drained).toFixed(0)} s after the import; the reads run beside them`,
      );
      say(`${step.toLocaleString("en-US")} mentions: step imported at ${Math.round(rate).toLocaleString("en-US")} posts/s (${(run.ms / 1000).toFixed(1)} s; ${run.out.trim().replace(/\n/g, "; ")}), RSS ${mb(rss)}, disk ${mb(disk)}`);
      last = await reads(`at ${step.toLocaleString("en-US")}`);
      first ??= last;
      rows.push(`| ${step.toLocaleString("en-US")} | ${Math.round(rate).toLocaleString("en-US")} /s | ${mb(rss)} | ${mb(disk)} | ${last.list.toFixed(1)} ms | ${last.analytics.toFixed(1)} ms | ${last.exp.toFixed(1)} ms |`);
    }
    const rssBefore = await rssOf(running.child.pid as number);
    await stopEarshot(running);
    running = await startEarshot(dataDir);
    const rssReady = await rssOf(running.child.pid as number);
    const resumed = await settle(running.child.pid as number);
    say(resumed >= 0 ? `after the restart, idle in ${resumed.toFixed(0)} s` : `after the restart, the consumers resumed where they were and were still at work after ${(-resumed).toFixed(0)} s`);
    const after = await reads("after the restart");
    const rssAfter = await rssOf(running.child.pid as number);
    const f = first as typeof last;
    say(`\noverall import ${Math.round((N / importMs) * 1000).toLocaleString("en-US")} posts/s; RSS ${mb(rssBefore)} before the restart; restart to ready ${(running.readyMs / 1000).toFixed(2)} s, RSS ${mb(rssReady)} at ready and ${mb(rssAfter)} after the reads; disk ${mb(await dirSize(dataDir))}`);
    const parts: string[] = [];
    for (const d of await readdir(dataDir, { withFileTypes: true })) if (d.isDirectory()) parts.push(`${d.name} ${mb(await dirSize(join(dataDir, d.name)))}`);
    say(`disk by directory: ${parts.join(", ")}`);
    say(`reads at ${N.toLocaleString("en-US")} vs ${STEPS[0]?.toLocaleString("en-US")}, after the restart: list ${(after.list / f.list).toFixed(2)}x, analytics ${(after.analytics / f.analytics).toFixed(2)}x, export ${(after.exp / f.exp).toFixed(2)}x`);
    say(`\n| mentions | step import | RSS | disk | list_mentions p95 | analytics p95 | export p95 |\n|---|---|---|---|---|---|---|\n${rows.join("\n")}`);
    say(`| ${N.toLocaleString("en-US")}, restarted | - | ${mb(rssAfter)} | - | ${after.list.toFixed(1)} ms | ${after.analytics.toFixed(1)} ms | ${after.exp.toFixed(1)} ms |`);
  } finally {
    if (running) await stopEarshot(running).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    await rm(postsDir, { recursive: true, force: true });
  }
};

runBench(main);
