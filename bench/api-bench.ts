// GET /api/v1/projects/{id} and GET /api/v1/keywords?projectId= (a page of 20 keywords) through the
// all-in-one (gateway → auth cache → rate limit → one gRPC hop → embedded store) versus a bare express app
// serving the same JSON from memory; same run, 50 connections. BENCH_ROUTES=project,keywords picks routes.
// Usage: make bench (or node services/platform/test/ts-child.js bench/api-bench.ts after make build).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";

const repo = resolve(__dirname, "..");
const DURATION = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = 50;

const startChild = (args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> =>
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

const run = (url: string, headers: Record<string, string>) =>
  new Promise<autocannon.Result>((resolvePromise, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers }, (err, result) => (err ? reject(err) : resolvePromise(result)));
  });

const warm = (url: string, headers: Record<string, string>) =>
  new Promise<void>((resolvePromise) => autocannon({ url, connections: CONNECTIONS, duration: 3, headers }, () => resolvePromise()));

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-bench-"));
  const children: ChildProcess[] = [];
  try {
    const earshot = await startChild(
      ["services/all-in-one/dist/main.js"],
      { EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "warn", EARSHOT_RATE_LIMIT_PER_MINUTE: "1000000" },
      /Earshot is running at (http:\/\/\S+)/,
    );
    children.push(earshot.child);
    const base = earshot.match[1] as string;
    await new Promise((r) => setTimeout(r, 500));
    const { apiKey } = JSON.parse(await readFile(join(dataDir, "bootstrap.json"), "utf8")) as { apiKey: string };
    const auth = { Authorization: `Bearer ${apiKey}` };
    const created = await fetch(`${base}/api/v1/projects`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Benchmark" }),
    });
    const projectId = ((await created.json()) as { data: { id: string } }).data.id;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base}/api/v1/keywords`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ projectId, value: `Brand ${i}`, sources: ["x", "reddit"], aliases: [`brand${i}`], excludedTerms: ["spam"], filters: {}, caseSensitive: false }),
      });
      if (res.status !== 201) throw new Error(`create_keyword answered ${res.status}: ${await res.text()}`);
    }
    const routes = (process.env.BENCH_ROUTES ?? "project,keywords").split(",");
    const paths: Record<string, string> = { project: `/api/v1/projects/${projectId}`, keywords: `/api/v1/keywords?projectId=${projectId}` };
    const row = (name: string, r: autocannon.Result) =>
      `${name.padEnd(34)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(3)} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
    for (const route of routes) {
      const path = paths[route];
      if (!path) throw new Error(`unknown route ${route}; use ${Object.keys(paths).join(", ")}`);
      const body = await (await fetch(`${base}${path}`, { headers: auth })).text();
      const bare = await startChild(["bench/bare-app.js"], { BARE_BODY: body }, /listening (\d+)/);
      children.push(bare.child);
      const bareUrl = `http://127.0.0.1:${bare.match[1]}${path}`;

      await warm(bareUrl, {});
      const bareResult = await run(bareUrl, {});
      await warm(`${base}${path}`, auth);
      const earshotResult = await run(`${base}${path}`, auth);
      bare.child.kill("SIGTERM");

      process.stdout.write(`\nGET ${path} — ${CONNECTIONS} connections, ${DURATION} s each, node ${process.version}, ${body.length} bytes\n`);
      process.stdout.write(`${row("bare express (JSON from memory)", bareResult)}\n`);
      process.stdout.write(`${row("earshot all-in-one", earshotResult)}\n`);
      process.stdout.write(`ratio earshot / bare: ${(earshotResult.requests.average / bareResult.requests.average).toFixed(2)}\n`);
    }
  } finally {
    for (const c of children) c.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    await rm(dataDir, { recursive: true, force: true });
  }
};

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
