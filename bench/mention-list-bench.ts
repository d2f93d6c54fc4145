// list_mentions on the embedded store (file-backed, as the all-in-one runs it): p50/p95 of a page of 20
// at 10,000 and at 100,000 mentions in one project, with and without filters, through the domain verb
// (access check, filter building, the store's paged read). The cost of a page must not grow with the
// project. Mentions come from a seeded PRNG, so every run reads the same data. At each size it also
// times a public dashboard's reads (the page: its first page of mentions and its analytics; and the
// analytics alone, as analytics.json answers them) for the 30- and 90-day periods.
// Usage: node services/platform/test/ts-child.js bench/mention-list-bench.ts
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbeddedStore, Outbox, type ProjectCaller, silentLogger, systemClock } from "@earshot/platform";
import type { MentionFilterInput } from "../services/mention/src/fields";
import { listMentions } from "../services/mention/src/domain/mentions";
import { getPublicAnalytics, listPublicMentions } from "../services/mention/src/domain/public-dashboard";
import type { MentionDeps } from "../services/mention/src/domain/deps";
import { type MentionDoc, openMentionCollections } from "../services/mention/src/store";

const SIZES = [10_000, 100_000];
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const DASHBOARD_SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 20);
const SHARE_ID = "benchShare01";
const PAGES_DEEP = 10;
const PROJECT = "prj_01JBENCHMENTIONLIST0000001";

// mulberry32: small, fast and good enough to make the same data on every run.
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const random = prng(20261124);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;

const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${i}`);
// Word i is drawn with weight 1/(i+1): a few common words, a long tail, like real text.
const weights = VOCABULARY.map((_, i) => 1 / (i + 1));
const totalWeight = weights.reduce((a, b) => a + b, 0);
const word = () => {
  let r = random() * totalWeight;
  for (let i = 0; i < weights.length; i++) if ((r -= weights[i] as number) <= 0) return VOCABULARY[i] as string;
  return VOCABULARY[0] as string;
};

const START = Date.parse("2026-01-01T00:00:00Z");
const SPAN = 180 * 24 * 3_600_000;
let serial = 0;

const makeMention = (): MentionDoc => {
  serial += 1;
  const publishedAt = new Date(START + int(SPAN));
  const source = pick(["x", "x", "reddit", "youtube", "linkedin"] as const);
  const sourceId = `post-${serial}`;
  const words = [...new Set(Array.from({ length: 12 }, word))];
  const status = random() < 0.7 ? "open" : random() < 0.66 ? "done" : "follow_up";
  const now = new Date(START + SPAN);
  const kw = `kw_${int(20)}`;
  return {
    _id: `men_${String(serial).padStart(26, "0")}`,
    projectId: PROJECT,
    workspaceId: "wsp_bench",
    source,
    sourceId,
    postKey: `${PROJECT}|${source}|${sourceId}`,
    url: `https://example.com/${sourceId}`,
    text: words.join(" "),
    author: { id: `u${int(5000)}`, handle: `user${int(5000)}`, name: "Someone" },
    authorKey: `user${int(5000)}`,
    publishedAt,
    keywordIds: [kw],
    groupIds: [`kwg_${int(3)}`],
    matches: [{ keywordId: kw, term: "acme", field: "text", start: 0, end: 4 }],
    sentiment: { label: pick(["positive", "neutral", "neutral", "negative"] as const), score: 0, method: "lexicon" },
    words,
    status,
    ...(random() < 0.3 ? { categoryId: `cat_${int(5)}` } : {}),
    collectedAt: now,
    matchedAt: now,
    updatedAt: now,
    history: [],
    _v: 1,
  };
};

const SCENARIOS: Array<[string, MentionFilterInput]> = [
  ["no filter", {}],
  ["status done", { status: ["done"] }],
  ["source reddit", { source: ["reddit"] }],
  ["q (a word in ~10% of mentions)", { q: "w8" }],
  ["since/until (one week)", { since: "2026-03-01T00:00:00Z", until: "2026-03-08T00:00:00Z" }],
  ["categoryId none", { categoryId: ["none"] }],
  ["status open + source x + q", { status: ["open"], source: ["x"], q: "w3" }],
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "earshot-mention-bench-"));
  const store = await openEmbeddedStore({ dir: join(dir, "mention") });
  try {
    const collections = await openMentionCollections(store);
    // The dashboard's periods end at the end of the generated data's span: 90 days hold half of it.
    const clock = { now: () => new Date(START + SPAN) } as typeof systemClock;
    const deps = { collections, outbox: new Outbox(store, clock, "mention"), clock, logger: silentLogger() } as unknown as MentionDeps;
    await collections.projects.insertOne({ _id: PROJECT, workspaceId: "wsp_bench", status: "active", timezone: "UTC", shareId: SHARE_ID, dashboardServed: true, updatedAt: clock.now() });
    const dashboardRows: string[] = [];
    const caller: ProjectCaller = {
      userId: "usr_bench",
      workspaceId: "wsp_bench",
      allowances: { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 },
      membership: (id) => (id === PROJECT ? { role: "viewer", workspaceId: "wsp_bench" } : undefined),
    };
    const rows: string[] = [];
    let stored = 0;
    for (const size of SIZES) {
      const t = process.hrtime.bigint();
      while (stored < size) {
        const batch = Array.from({ length: Math.min(1000, size - stored) }, makeMention);
        await collections.mentions.insertMany(batch);
        stored += batch.length;
      }
      process.stdout.write(`${size} mentions stored (${(Number(process.hrtime.bigint() - t) / 1e6).toFixed(0)} ms to add)\n`);
      for (const [name, filters] of SCENARIOS) {
        const times: number[] = [];
        let cursor: string | undefined;
        let page = 0;
        let rowsSeen = 0;
        for (let i = 0; i < SAMPLES; i++) {
          const t0 = process.hrtime.bigint();
          const result = await listMentions(deps, caller, { projectId: PROJECT, filters, limit: 20, cursor });
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
          rowsSeen += result.items.length;
          // Pages 1 to PAGES_DEEP, again and again: first pages and pages behind a cursor.
          page += 1;
          cursor = result.nextCursor && page < PAGES_DEEP ? result.nextCursor : undefined;
          if (!cursor) page = 0;
        }
        times.sort((a, b) => a - b);
        const row = `| ${size.toLocaleString("en")} | ${name} | ${percentile(times, 50).toFixed(2)} ms | ${percentile(times, 95).toFixed(2)} ms | ${(rowsSeen / SAMPLES).toFixed(1)} |`;
        rows.push(row);
        process.stdout.write(`${row}\n`);
      }
      const reads: Array<[string, () => Promise<unknown>]> = [
        ["page (first 20 mentions + analytics), 30 days", () => Promise.all([listPublicMentions(deps, SHARE_ID, { days: 30, limit: 20 }), getPublicAnalytics(deps, SHARE_ID, { days: 30 })])],
        ["analytics.json, 30 days", () => getPublicAnalytics(deps, SHARE_ID, { days: 30 })],
        ["analytics.json, 90 days", () => getPublicAnalytics(deps, SHARE_ID, { days: 90 })],
        ["analytics.json, 30 days, source reddit", () => getPublicAnalytics(deps, SHARE_ID, { days: 30, sources: ["reddit"] })],
      ];
      for (const [name, read] of reads) {
        const times: number[] = [];
        for (let i = 0; i < DASHBOARD_SAMPLES; i++) {
          const t0 = process.hrtime.bigint();
          await read();
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        times.sort((a, b) => a - b);
        const row = `| ${size.toLocaleString("en")} | ${name} | ${percentile(times, 50).toFixed(1)} ms | ${percentile(times, 95).toFixed(1)} ms |`;
        dashboardRows.push(row);
        process.stdout.write(`${row}\n`);
      }
    }
    process.stdout.write(`\n| mentions in the project | filter | p50 | p95 | rows per page |\n|---|---|---|---|---|\n${rows.join("\n")}\n`);
    process.stdout.write(`\n| mentions in the project | public dashboard read | p50 | p95 |\n|---|---|---|---|\n${dashboardRows.join("\n")}\n`);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
