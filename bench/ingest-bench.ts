// Ingestion through `earshot posts import` into the all-in-one (embedded store, in-process bus): one
// project with 1,000 active keywords, a generated JSONL of realistic posts (a seeded PRNG, so every run
// reads the same file), imported with the CLI as an operator would. Prints posts/s and mentions/s for the
// first import and for the same file imported again (every post a duplicate).
//
// The free plan allows a workspace 100 active keywords, so the first 100 are created over the API and
// the other 900 with the keyword service's own CreateKeyword, called as the edge calls it but with a
// caller allowed 1,000: the keyword events then reach the mention service exactly as for API keywords.
// Usage: node services/platform/test/ts-child.js bench/ingest-bench.ts (after make build).
// BENCH_POSTS (default 50,000) and BENCH_KEYWORDS (default 1,000) change the sizes.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { once } from "node:events";
import { createGrpcClient, runWithCaller, readCallKeys } from "@earshot/platform";
import { commonV1, keywordV1, mentionV1 } from "@earshot/proto";
import { startChild } from "./api-setup";
import { keywordValues, postLine } from "./post-corpus";
import { runBench } from "./bench-support";

const repo = resolve(__dirname, "..");
const POSTS = Number(process.env.BENCH_POSTS ?? 50_000);
const KEYWORDS = Number(process.env.BENCH_KEYWORDS ?? 1_000);
const OVER_API = Math.min(100, KEYWORDS);

const runCliImport = (dataDir: string, projectId: string, file: string): Promise<{ ms: number; out: string; code: number | null }> =>
  new Promise((resolvePromise) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ["services/cli/dist/cli.js", "posts", "import", "--project", projectId, "--file", file], {
      cwd: repo,
      env: { ...process.env, EARSHOT_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => resolvePromise({ ms: Number(process.hrtime.bigint() - started) / 1e6, out, code }));
  });

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-ingest-bench-"));
  let earshot: ChildProcess | undefined;
  try {
    const started = await startChild(
      ["services/all-in-one/dist/main.js"],
      // No collection: the simulated platforms would poll for the 1,000 keywords during the import.
      { EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "warn", EARSHOT_RATE_LIMIT_PER_MINUTE: "1000000", EARSHOT_SIMULATORS: "off" },
      /Earshot is running at (http:\/\/\S+)/,
    );
    earshot = started.child;
    const base = started.match[1] as string;
    const { apiKey } = JSON.parse(await readFile(join(dataDir, "bootstrap.json"), "utf8")) as { apiKey: string };
    const services = JSON.parse(await readFile(join(dataDir, "services.json"), "utf8")) as Record<string, string>;
    // Its services take only calls signed with the keys in its data directory, as the operator CLI signs them.
    const keys = await readCallKeys(dataDir);
    const auth = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}/api/v1${path}`, { method, headers: auth, ...(body ? { body: JSON.stringify(body) } : {}) });
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: T }).data;
    };
    const account = await api<{ id: string; email: string; workspace: { id: string } }>("GET", "/account");
    const project = await api<{ id: string }>("POST", "/projects", { name: "Ingestion benchmark" });

    const values = keywordValues(KEYWORDS);
    const keywordsStarted = Date.now();
    for (const value of values.slice(0, OVER_API)) {
      await api("POST", "/keywords", { projectId: project.id, value, sources: ["x", "reddit"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false });
    }
    const keyword = createGrpcClient(keywordV1.KeywordServiceClient, services.keyword as string, { ...keys, deadlineMs: 30_000 });
    const caller: commonV1.Caller = {
      userId: account.id,
      workspaceId: account.workspace.id,
      email: account.email,
      memberships: [{ projectId: project.id, role: commonV1.Role.ROLE_OWNER, workspaceId: account.workspace.id }],
      allowances: { projects: 10, keywords: KEYWORDS, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 },
    };
    for (const value of values.slice(OVER_API)) {
      await runWithCaller(caller, () =>
        keyword.client.createKeyword({
          projectId: project.id,
          value,
          sources: [commonV1.Source.SOURCE_X, commonV1.Source.SOURCE_REDDIT],
          aliases: [],
          excludedTerms: [],
          filters: undefined,
          caseSensitive: false,
        }),
      );
    }
    keyword.close();
    const keywordMs = Date.now() - keywordsStarted;

    // The keyword events travel through the outbox and the bus: wait until the last keyword matches.
    const mention = createGrpcClient(mentionV1.MentionServiceClient, services.mention as string, keys);
    const last = values[values.length - 1] as string;
    for (let attempt = 0; ; attempt++) {
      const probe: mentionV1.Post = {
        projectId: project.id,
        source: commonV1.Source.SOURCE_X,
        sourceId: `probe-${attempt}`,
        url: "https://x.com/probe/status/1",
        text: `probe ${last}`,
        author: { id: "probe", handle: "probe", name: "Probe" },
        publishedAt: new Date(),
      };
      if ((await mention.client.ingestPosts({ posts: [probe] })).created === 1) break;
      if (attempt > 600) throw new Error("the mention service never learned the keywords");
      await new Promise((r) => setTimeout(r, 100));
    }
    mention.close();

    const file = join(dataDir, "posts.jsonl");
    const out = createWriteStream(file);
    for (let i = 0; i < POSTS; i++) if (!out.write(`${postLine(i, values)}\n`)) await once(out, "drain");
    out.end();
    await once(out, "finish");

    const first = await runCliImport(dataDir, project.id, file);
    const again = await runCliImport(dataDir, project.id, file);
    const created = Number(/created (\d+)/.exec(first.out)?.[1] ?? 0);
    const rate = (n: number, ms: number) => Math.round((n / ms) * 1000).toLocaleString("en-US");
    process.stdout.write(`\nnode ${process.version}; ${KEYWORDS} active keywords (${OVER_API} over the API, ${KEYWORDS - OVER_API} over gRPC) in ${keywordMs} ms\n`);
    process.stdout.write(`first import (exit ${first.code}):  ${POSTS} posts in ${first.ms.toFixed(0)} ms = ${rate(POSTS, first.ms)} posts/s, ${created} mentions = ${rate(created, first.ms)} mentions/s\n  ${first.out.trim().split("\n").join("\n  ")}\n`);
    process.stdout.write(`same file again (exit ${again.code}): ${POSTS} posts in ${again.ms.toFixed(0)} ms = ${rate(POSTS, again.ms)} posts/s\n  ${again.out.trim().split("\n").join("\n  ")}\n`);
  } finally {
    earshot?.kill("SIGTERM");
    if (earshot) await once(earshot, "exit").catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
