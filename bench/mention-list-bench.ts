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
import { openMentionCollections } from "../services/mention/src/store";
import { mentionGenerator, SPAN, START } from "./mention-data";
import { percentile, runBench } from "./bench-support";

const SIZES = [10_000, 100_000];
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const DASHBOARD_SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 20);
const SHARE_ID = "benchShare01";
const PAGES_DEEP = 10;
const PROJECT = "prj_01JBENCHMENTIONLIST0000001";

const makeMention = mentionGenerator(PROJECT, "wsp_bench");

const SCENARIOS: Array<[string, MentionFilterInput]> = [
  ["no filter", {}],
  ["status done", { status: ["done"] }],
  ["source reddit", { source: ["reddit"] }],
  ["q (a word in ~10% of mentions)", { q: "w8" }],
  ["since/until (one week)", { since: "2026-03-01T00:00:00Z", until: "2026-03-08T00:00:00Z" }],
  ["categoryId none", { categoryId: ["none"] }],
  ["status open + source x + q", { status: ["open"], source: ["x"], q: "w3" }],
];


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

runBench(main);
