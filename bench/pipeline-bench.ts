// The pipeline end to end: posts imported into the all-in-one (embedded store, in-process bus) become
// mentions, each `mention.created` goes to 10 webhook endpoints, and a local HTTPS receiver verifies every
// delivery with the `standardwebhooks` package and counts it. One project with 1,000 active keywords (as
// in ingest-bench.ts: 100 over the API, 900 through the keyword service's CreateKeyword with a caller
// allowed 1,000), 10 endpoints of the project subscribed to `mention.created` (created through the webhook
// service's CreateWebhook with a caller allowed enough deliveries a day, as the free plan's 1,000 would
// hold them after the first thousand).
//
// Posts go to the mention service's IngestPosts (what `earshot posts import` calls) in batches, one batch
// in flight, paced to BENCH_RATE posts/s (0: as fast as the service answers). Latency is from the moment a
// post's batch was sent to the moment the receiver verified its delivery. It prints the posts/s imported,
// the posts/s sustained end to end (posts over the time from the first batch to the last delivery),
// latency p50/p95/p99 and what the receiver counted: lost (expected, never verified), duplicated (the
// same webhook-id twice at one endpoint) and refused signatures.
//
// BENCH_SOURCE=simulators: the posts come from the X and Reddit simulators instead, through the integration
// service's pollers: the simulators run in this process (rate windows raised so nothing is throttled, no
// generated posts), each corpus post is published at its simulator at the pace (`world.publish`, created
// now), the pollers collect the ones naming a keyword every BENCH_POLL_S (2) seconds, and latency is from
// the post's creation at the simulator (its publishedAt) to the verified delivery. Expected mentions are
// the posts naming a keyword (the simulators' search rule: the keyword's text anywhere, any case).
//
// The receiver's certificate is signed by a CA made for the run; the delivery service trusts it through
// EARSHOT_WEBHOOK_CA_FILE, and EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS lets it reach 127.0.0.1.
// Usage: node services/platform/test/ts-child.js bench/pipeline-bench.ts (after make build).
// BENCH_POSTS (20,000), BENCH_RATE (2,000), BENCH_BATCH (100), BENCH_KEYWORDS (1,000), BENCH_ENDPOINTS (10),
// BENCH_SETTLE_S (30: give up once nothing arrived for this long), BENCH_CPU_PROF (a directory: the
// all-in-one writes a V8 CPU profile there on exit).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createGrpcClient, runWithCaller, readCallKeys } from "@earshot/platform";
import { commonV1, keywordV1, mentionV1, webhookV1 } from "@earshot/proto";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { Webhook } from "standardwebhooks";
import { postFromLine } from "../services/cli/src/posts-import";
import { type Received, startReceiver } from "../services/webhook/src/receiver-test-support";
import { keywordValues, postLine } from "./post-corpus";
import { cpuSecondsOf, percentile, runBench, sleep } from "./bench-support";

const repo = resolve(__dirname, "..");
const POSTS = Number(process.env.BENCH_POSTS ?? 20_000);
const RATE = Number(process.env.BENCH_RATE ?? 2_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const KEYWORDS = Number(process.env.BENCH_KEYWORDS ?? 1_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_S ?? 30) * 1000;
const CPU_PROF = process.env.BENCH_CPU_PROF;
const OVER_API = Math.min(100, KEYWORDS);
const SOURCE = process.env.BENCH_SOURCE ?? "import";
const POLL_S = Number(process.env.BENCH_POLL_S ?? 2);
if (SOURCE !== "import" && SOURCE !== "simulators") throw new Error(`BENCH_SOURCE is import or simulators, not ${SOURCE}`);


const startAllInOne = (env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> =>
  new Promise((ok, fail) => {
    const args = [...(CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROF] : []), "services/all-in-one/dist/main.js"];
    const child = spawn(process.execPath, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /Earshot is running at (http:\/\/\S+)/.exec(out);
      if (m) ok({ child, base: m[1] as string });
    });
    child.on("exit", (code) => fail(new Error(`the all-in-one exited ${code}`)));
  });

/** A port free on loopback now, for the all-in-one's admin port. */
const freePort = async (): Promise<number> => {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  await new Promise((done) => server.close(done));
  return port;
};

/** The webhook store's document writes so far, by collection, from the all-in-one's metrics. */
const webhookStoreWrites = async (port: number): Promise<Map<string, number>> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^earshot_store_document_writes_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...(m[1] as string).matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.store === "webhook") counts.set(labels.collection as string, Number(m[2]));
  }
  return counts;
};

/** What the receiver saw: verified deliveries by endpoint and webhook-id, and when. */
class Tally {
  readonly sentAt = new Map<string, number>();
  readonly seen = new Set<string>();
  readonly latencies: number[] = [];
  /** Collected posts: from the post's creation at the simulator to its collection (the mention's collectedAt). */
  readonly collectionLags: number[] = [];
  duplicates = 0;
  refused = 0;
  unknown = 0;
  lastAt = 0;
  verified = 0;

  constructor(private readonly verifiers: Map<string, Webhook>) {}

  take(r: Received, path: string): void {
    const now = performance.now();
    const verifier = this.verifiers.get(path);
    let payload: { type: string; data: { sourceId?: string; author?: { handle?: string }; publishedAt?: string; collectedAt?: string } };
    try {
      if (!verifier) throw new Error(`no endpoint at ${path}`);
      payload = verifier.verify(r.body, r.headers as Record<string, string>) as typeof payload;
    } catch {
      this.refused += 1;
      return;
    }
    this.lastAt = now;
    const key = `${path} ${String(r.headers["webhook-id"])}`;
    if (this.seen.has(key)) {
      this.duplicates += 1;
      return;
    }
    this.seen.add(key);
    // Imported posts are known by their sourceId; collected ones by their author handle (the platform's id
    // is the simulator's to choose).
    const sent = this.sentAt.get((SOURCE === "simulators" ? payload.data.author?.handle : payload.data.sourceId) ?? "");
    if (sent === undefined) {
      this.unknown += 1; // the readiness probe's mentions
      return;
    }
    this.verified += 1;
    this.latencies.push(now - sent);
    if (SOURCE === "simulators") this.collectionLags.push(Date.parse(payload.data.collectedAt ?? "") - Date.parse(payload.data.publishedAt ?? ""));
  }
}

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-pipeline-bench-"));
  // Beside the data directory, not in it: the all-in-one bootstraps only an empty one.
  const caDir = await mkdtemp(join(tmpdir(), "earshot-pipeline-bench-ca-"));
  const receiver = await startReceiver();
  const sims: RunningSimulators | undefined =
    SOURCE === "simulators" ? await startSimulators({ platforms: ["x", "reddit"], generate: false, rateLimits: { x: 1_000_000_000, reddit: 1_000_000_000 } }) : undefined;
  let earshot: ChildProcess | undefined;
  try {
    const caFile = join(caDir, "receiver-ca.pem");
    await writeFile(caFile, receiver.ca);
    const metricsPort = await freePort();
    const started = await startAllInOne({
      EARSHOT_DATA_DIR: dataDir,
      // Its admin port: the store's document writes by collection (earshot_store_document_writes_total).
      EARSHOT_METRICS_PORT: String(metricsPort),
      PORT: "0",
      LOG_LEVEL: "warn",
      EARSHOT_RATE_LIMIT_PER_MINUTE: "1000000",
      EARSHOT_WEBHOOK_CA_FILE: caFile,
      EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      // No simulators of its own: they would bring mentions of the 1,000 keywords of their own. With
      // BENCH_SOURCE=simulators it polls this process's, which hold only the posts published here.
      EARSHOT_SIMULATORS: "off",
      ...(sims ? { ...sims.settings, EARSHOT_SIMULATED_SOURCES: "x,reddit", EARSHOT_POLL_INTERVAL_SECONDS: String(POLL_S) } : {}),
    });
    earshot = started.child;
    const { base } = started;
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
    const project = await api<{ id: string }>("POST", "/projects", { name: "Pipeline benchmark" });
    const caller: commonV1.Caller = {
      userId: account.id,
      workspaceId: account.workspace.id,
      email: account.email,
      memberships: [{ projectId: project.id, role: commonV1.Role.ROLE_OWNER, workspaceId: account.workspace.id }],
      allowances: { projects: 10, keywords: KEYWORDS, seats: 10, webhookDeliveriesPerDay: 100_000_000, linkedinSyncsPerDay: 20 },
    };

    const values = keywordValues(KEYWORDS);
    for (const value of values.slice(0, OVER_API)) {
      await api("POST", "/keywords", { projectId: project.id, value, sources: ["x", "reddit"], aliases: [], excludedTerms: [], filters: {}, caseSensitive: false });
    }
    const keyword = createGrpcClient(keywordV1.KeywordServiceClient, services.keyword as string, { ...keys, deadlineMs: 30_000 });
    for (const value of values.slice(OVER_API)) {
      const sources = [commonV1.Source.SOURCE_X, commonV1.Source.SOURCE_REDDIT];
      await runWithCaller(caller, () => keyword.client.createKeyword({ projectId: project.id, value, sources, aliases: [], excludedTerms: [], filters: undefined, caseSensitive: false }));
    }
    keyword.close();

    // Ten endpoints, each at its own path so the receiver knows whose secret verifies it.
    const webhook = createGrpcClient(webhookV1.WebhookServiceClient, services.webhook as string, { ...keys, deadlineMs: 30_000 });
    const verifiers = new Map<string, Webhook>();
    for (let i = 0; i < ENDPOINTS; i++) {
      const url = `https://127.0.0.1:${receiver.port}/hooks/${i}`;
      const created = await runWithCaller(caller, () => webhook.client.createWebhook({ projectId: project.id, name: `bench ${i}`, url, eventTypes: ["mention.created"] }));
      verifiers.set(`/hooks/${i}`, new Webhook(created.secret));
    }
    webhook.close();
    const tally = new Tally(verifiers);
    receiver.answer((r) => {
      tally.take(r, r.path);
      return { status: 200 };
    });

    // Ready when a probe naming the last keyword reaches every endpoint: the keywords and the endpoints
    // travelled through the outbox and the bus to the mention and delivery services.
    const mention = createGrpcClient(mentionV1.MentionServiceClient, services.mention as string, { ...keys, deadlineMs: 60_000 });
    const last = values[values.length - 1] as string;
    for (let attempt = 0; sims; attempt++) {
      // Collected: a probe on each platform, through the pollers.
      for (const platform of ["x", "reddit"] as const) sims.world.publish(platform, { text: `probe ${last}`, title: "probe", subreddit: "tech", author: { handle: `probe-${platform}-${attempt}` } });
      const until = Date.now() + 20_000;
      while (tally.unknown < 2 * ENDPOINTS && Date.now() < until) await sleep(100);
      if (tally.unknown >= 2 * ENDPOINTS) break;
      if (attempt > 30) throw new Error("the pollers, the mention or the delivery service never got going");
    }
    for (let attempt = 0; !sims; attempt++) {
      const probe: mentionV1.Post = {
        projectId: project.id,
        source: commonV1.Source.SOURCE_X,
        sourceId: `probe-${attempt}`,
        url: "https://x.com/probe/status/1",
        text: `probe ${last}`,
        author: { id: "probe", handle: "probe", name: "Probe" },
        publishedAt: new Date(),
      };
      const created = (await mention.client.ingestPosts({ posts: [probe] })).created;
      if (created === 1) {
        const until = Date.now() + 10_000;
        while (tally.unknown < ENDPOINTS && Date.now() < until) await sleep(50);
        if (tally.unknown >= ENDPOINTS) break;
      }
      if (attempt > 300) throw new Error("the mention or delivery service never learned the keywords or endpoints");
      await sleep(100);
    }

    const batches: mentionV1.Post[][] = [];
    for (let i = 0; i < POSTS; i += BATCH) {
      batches.push(Array.from({ length: Math.min(BATCH, POSTS - i) }, (_, k) => postFromLine(postLine(i + k, values), project.id)));
    }
    let mentions = 0;
    const writes0 = await webhookStoreWrites(metricsPort);
    const cpu0 = cpuSecondsOf(earshot.pid as number);
    const ownCpu0 = process.cpuUsage();
    const t0 = performance.now();
    if (sims) {
      const lower = values.map((v) => v.toLowerCase());
      for (let b = 0; b < batches.length; b++) {
        const due = t0 + (RATE > 0 ? (b * BATCH * 1000) / RATE : 0);
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const published = performance.now();
        for (const p of batches[b] as mentionV1.Post[]) {
          const handle = `bench-${p.sourceId}`;
          const platform = p.source === commonV1.Source.SOURCE_REDDIT ? "reddit" : "x";
          sims.world.publish(platform, { text: p.text, ...(p.title ? { title: p.title } : {}), subreddit: "tech", author: { handle } });
          tally.sentAt.set(handle, published);
          const hay = `${p.title ?? ""} ${p.text}`.toLowerCase();
          if (lower.some((v) => hay.includes(v))) mentions += 1;
        }
      }
    }
    for (let b = 0; !sims && b < batches.length; b++) {
      const due = t0 + (RATE > 0 ? (b * BATCH * 1000) / RATE : 0);
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const batch = batches[b] as mentionV1.Post[];
      const sent = performance.now();
      for (const p of batch) tally.sentAt.set(p.sourceId, sent);
      mentions += (await mention.client.ingestPosts({ posts: batch })).created;
    }
    const importedAt = performance.now();
    const imported = sims ? "published at the simulators" : "imported";
    mention.close();

    const expected = mentions * ENDPOINTS;
    let lastCount = -1;
    let quietSince = performance.now();
    while (tally.verified < expected) {
      await sleep(200);
      const count = tally.verified + tally.duplicates;
      if (count !== lastCount) {
        lastCount = count;
        quietSince = performance.now();
      } else if (performance.now() - quietSince > SETTLE_MS) break;
    }
    // Without deliveries to wait for, the import's tail (the relay, the other consumers) is counted until the
    // all-in-one goes quiet.
    for (let quiet = 0, before = cpuSecondsOf(earshot.pid as number); expected === 0 && quiet < 30; quiet++) {
      await sleep(1_000);
      const after = cpuSecondsOf(earshot.pid as number);
      if (after - before < 0.05) break;
      before = after;
    }
    const cpu1 = cpuSecondsOf(earshot.pid as number);
    const ownCpu = process.cpuUsage(ownCpu0);
    const cpuEndS = (performance.now() - t0) / 1000;
    // Anything that would arrive twice arrives soon after the first: wait a moment for it.
    await sleep(2_000);
    const writes1 = await webhookStoreWrites(metricsPort);
    const perDelivery = (collection: string) => (((writes1.get(collection) ?? 0) - (writes0.get(collection) ?? 0)) / Math.max(1, tally.verified)).toFixed(2);
    const webhookWrites = [...writes1].reduce((sum, [c, n]) => sum + n - (writes0.get(c) ?? 0), 0);

    const lat = tally.latencies.sort((a, b) => a - b);
    const importS = (importedAt - t0) / 1000;
    const endToEndS = (tally.lastAt - t0) / 1000;
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    process.stdout.write(
      [
        "",
        `node ${process.version}; ${SOURCE === "simulators" ? `collected from the X and Reddit simulators, polled every ${POLL_S} s` : "imported"}; ${KEYWORDS} active keywords, ${ENDPOINTS} endpoints on mention.created, ${POSTS} posts in batches of ${BATCH}, paced to ${RATE > 0 ? `${RATE} posts/s` : "the service's answers"}`,
        `${imported}: ${POSTS} posts in ${importS.toFixed(1)} s = ${(POSTS / importS).toFixed(0)} posts/s; ${mentions} mentions${sims ? " expected (posts naming a keyword)" : ""}`,
        `delivered and verified: ${tally.verified} of ${expected} (${ENDPOINTS} per mention); last one ${endToEndS.toFixed(1)} s after the first batch`,
        `sustained end to end: ${(POSTS / endToEndS).toFixed(0)} posts/s, ${(tally.verified / endToEndS).toFixed(0)} deliveries/s`,
        `${sims ? "published" : "import"} -> verified delivery: p50 ${ms(percentile(lat, 50))}, p95 ${ms(percentile(lat, 95))}, p99 ${ms(percentile(lat, 99))}, max ${ms(lat[lat.length - 1] ?? NaN)}`,
        ...(sims ? [`of which collection (published -> the mention's collectedAt): p50 ${ms(percentile(tally.collectionLags.sort((a, b) => a - b), 50))}, p95 ${ms(percentile(tally.collectionLags, 95))}`] : []),
        `CPU of the all-in-one from the first batch to the last delivery: ${(cpu1 - cpu0).toFixed(1)} s over ${cpuEndS.toFixed(1)} s (${((cpu1 - cpu0) / cpuEndS).toFixed(2)} cores), ${(((cpu1 - cpu0) / POSTS) * 1000).toFixed(3)} ms per post; of this process (receiver${sims ? " and simulators" : ", importer"}): ${((ownCpu.user + ownCpu.system) / 1e6).toFixed(1)} s`,
        `lost ${expected - tally.verified}, duplicated ${tally.duplicates}, refused signatures ${tally.refused}`,
        `webhook store writes per verified delivery: ${(webhookWrites / Math.max(1, tally.verified)).toFixed(2)} documents (deliveries ${perDelivery("deliveries")}, budgets ${perDelivery("budgets")}, processed_events ${perDelivery("processed_events")}, other ${((webhookWrites - ["deliveries", "budgets", "processed_events"].reduce((sum, c) => sum + (writes1.get(c) ?? 0) - (writes0.get(c) ?? 0), 0)) / Math.max(1, tally.verified)).toFixed(2)})`,
        "",
      ].join("\n"),
    );
  } finally {
    earshot?.kill("SIGTERM");
    if (earshot) await once(earshot, "exit").catch(() => undefined);
    await receiver.close();
    await sims?.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(caDir, { recursive: true, force: true });
  }
};

runBench(main);
