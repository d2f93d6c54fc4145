// Polling cost: 1,000 projects x 4 sources against the simulators. The all-in-one runs as a child process
// (its CPU is read from /proc, so the simulators in this process are not counted) with every platform
// pointed at the simulators; each project has one keyword on all four sources and its LinkedIn Page
// connected through the real authorization flow. After one warm-up cycle it measures CPU seconds per poll
// cycle (one interval, in which every (project, source) is polled once) over BENCH_CYCLES cycles, waits one
// more interval, reads each project's source health, then reads every mention of a post that appeared during
// the measurement: detection lag = matchedAt (stored) - publishedAt (the
// moment the post appeared at the simulator), p50/p95/max overall and per source, split into published ->
// polled (the mention's collectedAt) and polled -> stored.
//
// Projects, keywords and LinkedIn connections are made over gRPC as the edge makes them (the free plan's
// 10 projects per workspace would otherwise need 100 accounts), with a caller allowed 1,000 projects.
// Usage: node services/platform/test/ts-child.js bench/poll-bench.ts (after make build).
// BENCH_PROJECTS (1,000), BENCH_INTERVAL_S (60), BENCH_CYCLES (3), BENCH_POST_EVERY_MS (30,000) change it.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createGrpcClient, runWithCaller, readCallKeys } from "@earshot/platform";
import { commonV1, integrationV1, keywordV1, mentionV1, projectV1 } from "@earshot/proto";
import { startSimulators } from "@earshot/simulators";
import { cpuSecondsOf, percentile, runBench, sleep } from "./bench-support";

const repo = resolve(__dirname, "..");
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 1_000);
const INTERVAL_S = Number(process.env.BENCH_INTERVAL_S ?? 60);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 3);
const POST_EVERY_MS = Number(process.env.BENCH_POST_EVERY_MS ?? 30_000);
const ALL = [commonV1.Source.SOURCE_X, commonV1.Source.SOURCE_REDDIT, commonV1.Source.SOURCE_YOUTUBE, commonV1.Source.SOURCE_LINKEDIN];
const SOURCE_WORD: Record<number, string> = { 1: "x", 2: "reddit", 3: "youtube", 4: "linkedin" };
const ACME = "urn:li:organization:1001";


/** Retries a call while the service has not yet heard of what it names (events still on their way). */
const eventually = async <T>(fn: () => Promise<T>, what: string): Promise<T> => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt > 300) throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      await sleep(100);
    }
  }
};

const main = async () => {
  const sims = await startSimulators({ generate: true, generateEveryMs: POST_EVERY_MS, backfill: 0, youtubeDailyQuota: 100_000_000, rateLimits: { x: 1_000_000, reddit: 1_000_000 } });
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-poll-bench-"));
  let earshot: ChildProcess | undefined;
  try {
    const child = spawn(process.execPath, ["services/all-in-one/dist/main.js"], {
      cwd: repo,
      env: { ...process.env, ...sims.settings, EARSHOT_SIMULATED_SOURCES: "x,reddit,youtube,linkedin", EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "error", EARSHOT_POLL_INTERVAL_SECONDS: String(INTERVAL_S), EARSHOT_YOUTUBE_DAILY_QUOTA: "100000000" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    earshot = child;
    let out = "";
    await new Promise<void>((ok, fail) => {
      child.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        if (/Earshot is running at/.test(out)) ok();
      });
      child.on("exit", (code) => fail(new Error(`the all-in-one exited ${code}`)));
    });
    const services = JSON.parse(await readFile(join(dataDir, "services.json"), "utf8")) as Record<string, string>;
    // Its services take only calls signed with the keys in its data directory, as the operator CLI signs them.
    const keys = await readCallKeys(dataDir);
    const { apiKey } = JSON.parse(await readFile(join(dataDir, "bootstrap.json"), "utf8")) as { apiKey: string };
    const base = /Earshot is running at (\S+)/.exec(out)?.[1] as string;
    const account = ((await (await fetch(`${base}/api/v1/account`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as { data: { id: string; email: string; workspace: { id: string } } }).data;
    const project = createGrpcClient(projectV1.ProjectServiceClient, services.project as string, { ...keys, deadlineMs: 30_000 });
    const keyword = createGrpcClient(keywordV1.KeywordServiceClient, services.keyword as string, { ...keys, deadlineMs: 30_000 });
    const integration = createGrpcClient(integrationV1.IntegrationServiceClient, services.integration as string, { ...keys, deadlineMs: 30_000 });
    const mention = createGrpcClient(mentionV1.MentionServiceClient, services.mention as string, { ...keys, deadlineMs: 30_000 });
    const allowances = { projects: PROJECTS, keywords: PROJECTS, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 };
    const callerOf = (projectId?: string): commonV1.Caller => ({
      userId: account.id,
      workspaceId: account.workspace.id,
      email: account.email,
      memberships: projectId ? [{ projectId, role: commonV1.Role.ROLE_OWNER, workspaceId: account.workspace.id }] : [],
      allowances,
    });

    const setupStarted = Date.now();
    const projectIds: string[] = [];
    for (let i = 0; i < PROJECTS; i++) {
      const created = await runWithCaller(callerOf(), () => project.client.createProject({ name: `Poll bench ${i}`, enabledSources: { sources: ALL } }));
      const projectId = created.project?.id as string;
      projectIds.push(projectId);
      const as = <T>(fn: () => Promise<T>) => runWithCaller(callerOf(projectId), fn);
      await eventually(() => as(() => keyword.client.createKeyword({ projectId, value: `Benchterm${i}`, sources: ALL, aliases: [], excludedTerms: [], filters: undefined, caseSensitive: false })), "create keyword");
      const { url } = await eventually(() => as(() => integration.client.getLinkedinConnectUrl({ projectId, redirectUri: `${base}/integrations/linkedin/callback` })), "connect url");
      const target = new URL(url);
      const form = new URLSearchParams(target.searchParams);
      form.set("member", "member-a");
      form.set("action", "allow");
      const decided = await fetch(`${target.origin}${target.pathname}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
      const back = new URL(decided.headers.get("location") as string);
      await integration.client.completeLinkedinAuthorization({ state: back.searchParams.get("state") ?? "", code: back.searchParams.get("code") ?? "", error: "", errorDescription: "" });
      await as(() => integration.client.selectLinkedinPage({ projectId, organizationUrn: ACME }));
    }
    const setupMs = Date.now() - setupStarted;

    // Warm-up: one whole cycle, so every poller has polled once (and the first polls' backfill is over).
    await sleep(INTERVAL_S * 1000);
    // Counted, not read off the request log's length: the log keeps only the newest 10,000 requests, and a
    // full log's length no longer grows (how LinkedIn once read as making no requests at 1,000 projects).
    const requestsBefore = sims.platforms.map((p) => sims.world.requestCount(p));
    const cpuBefore = cpuSecondsOf(child.pid as number);
    const measuredFrom = Date.now();
    await sleep(CYCLES * INTERVAL_S * 1000);
    const cpuAfter = cpuSecondsOf(child.pid as number);
    const measuredTo = Date.now();
    const requests = sims.platforms.map((p, i) => `${p} ${((sims.world.requestCount(p) - (requestsBefore[i] ?? 0)) / CYCLES).toFixed(0)}`);
    // One more interval for the polls to find what appeared at the end of the measurement, undisturbed: the
    // health reads below ran here once, and while they held the process the polls fell behind, which showed
    // as a lag tail of the benchmark's own making.
    await sleep(INTERVAL_S * 1000);
    // Every poller should have succeeded within the last cycle (a little slack for the tick that runs it).
    const healthFrom = Date.now();
    const ranLastCycle: Record<string, number> = { x: 0, reddit: 0, youtube: 0, linkedin: 0 };
    const failing: Record<string, number> = { x: 0, reddit: 0, youtube: 0, linkedin: 0 };
    for (const projectId of projectIds) {
      const health = await runWithCaller(callerOf(projectId), () => integration.client.getSourceHealth({ projectId }));
      for (const h of health.sources) {
        const word = SOURCE_WORD[h.source] ?? String(h.source);
        if (h.lastSuccessAt && h.lastSuccessAt.getTime() >= healthFrom - INTERVAL_S * 1000 * 1.1) ranLastCycle[word] = (ranLastCycle[word] ?? 0) + 1;
        if (h.lastError && (!h.lastSuccessAt || h.lastError.at > h.lastSuccessAt)) failing[word] = (failing[word] ?? 0) + 1;
      }
    }
    const healthMs = Date.now() - healthFrom;
    // Mentions of posts that appeared during the measurement (stored by the time their project is listed).
    const listFrom = Date.now();
    // Each lag split in two: the post published -> polled (collectedAt, when the poll that found it committed)
    // and polled -> stored as a mention (matchedAt), so a tail shows whether the polls or the consumer made it.
    const lags: Record<string, { total: number[]; polled: number[]; stored: number[] }> = {};
    const lagsOf = (name: string) => (lags[name] ??= { total: [], polled: [], stored: [] });
    for (const projectId of projectIds) {
      let cursor = "";
      do {
        const page = await runWithCaller(callerOf(projectId), () => mention.client.listMentions({ projectId, filters: undefined, limit: 100, cursor }));
        for (const m of page.mentions) {
          const published = (m.publishedAt as Date).getTime();
          if (published < measuredFrom || published > measuredTo) continue;
          const collected = (m.collectedAt as Date).getTime();
          const matched = (m.matchedAt as Date).getTime();
          for (const name of ["all", SOURCE_WORD[m.source] ?? String(m.source)]) {
            const l = lagsOf(name);
            l.total.push(matched - published);
            l.polled.push(collected - published);
            l.stored.push(matched - collected);
          }
        }
        cursor = page.nextCursor;
      } while (cursor);
    }
    for (const l of Object.values(lags)) for (const list of [l.total, l.polled, l.stored]) list.sort((a, b) => a - b);
    const listMs = Date.now() - listFrom;
    const cpu = cpuAfter - cpuBefore;
    const figures = (l: number[]) => `p50 ${(percentile(l, 50) / 1000).toFixed(1)} p95 ${(percentile(l, 95) / 1000).toFixed(1)} max ${(l.length ? (l[l.length - 1] as number) / 1000 : NaN).toFixed(1)} s`;
    const row = (name: string) => {
      const l = lagsOf(name);
      return `  ${name.padEnd(9)} ${String(l.total.length).padStart(6)} mentions  total ${figures(l.total)} | polled ${figures(l.polled)} | stored ${figures(l.stored)}`;
    };
    process.stdout.write(
      [
        "",
        `node ${process.version}; ${PROJECTS} projects x 4 sources, poll interval ${INTERVAL_S} s, a new post per term and source every ${POST_EVERY_MS / 1000} s; setup ${(setupMs / 1000).toFixed(0)} s`,
        `CPU of the all-in-one: ${cpu.toFixed(2)} s over ${CYCLES} cycles = ${(cpu / CYCLES).toFixed(2)} CPU s per poll cycle (${PROJECTS * 4} polls), ${((cpu / CYCLES / (PROJECTS * 4)) * 1000).toFixed(2)} ms per poll`,
        `provider requests per cycle: ${requests.join(", ")}`,
        `pollers that succeeded in the last cycle (of ${PROJECTS} each): ${Object.entries(ranLastCycle).map(([k, v]) => `${k} ${v}`).join(", ")}; last poll failed: ${Object.entries(failing).map(([k, v]) => `${k} ${v}`).join(", ")}`,
        `after the measurement: one interval's wait, then the source health of every project read in ${(healthMs / 1000).toFixed(1)} s, the mentions listed in ${(listMs / 1000).toFixed(1)} s`,
        "detection lag (total = stored - appeared at the simulator; polled = collected - appeared; stored = stored - collected), posts that appeared during the measurement:",
        ...["all", "x", "reddit", "youtube", "linkedin"].map(row),
        "",
      ].join("\n"),
    );
    project.close();
    keyword.close();
    integration.close();
    mention.close();
  } finally {
    earshot?.kill("SIGTERM");
    if (earshot) await once(earshot, "exit").catch(() => undefined);
    await sims.close();
    await rm(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
