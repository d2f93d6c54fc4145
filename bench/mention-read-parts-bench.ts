// The parts of a mention read at the store level, timed apart with their SQLite plans, on a file store of
// 100,000 generated mentions (BENCH_PARTS_MENTIONS to change): each query a get_mention_analytics request
// sends (the grouped count, the total, the share of voice: groups each holding a third of the mentions),
// and the first and the tenth page of the list filters that grew most through the API. Median of 5.
// Usage: node services/platform/test/ts-child.js bench/mention-read-parts-bench.ts
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CountSpec, type Filter, openEmbeddedStore } from "@earshot/platform";
import { afterCursorFilter } from "../services/platform/src/store/checks";
import type { SqliteStore } from "../services/platform/src/store/embedded";
import { type MentionDoc, MENTIONS, openMentionCollections } from "../services/mention/src/store";
import { mentionGenerator } from "./mention-data";
import { runBench } from "./bench-support";

const N = Number(process.env.BENCH_PARTS_MENTIONS ?? 100_000);
const DAY = 86_400_000;
const END = Date.parse("2026-06-30T00:00:00Z");
const starts = (days: number) => Array.from({ length: days }, (_, i) => new Date(END - days * DAY + i * DAY));
const period = (days: number): Filter => ({ projectId: "prj_bench", publishedAt: { $gte: new Date(END - days * DAY), $lt: new Date(END) } });
const and = (q: Filter, extra: Filter): Filter => ({ ...q, $and: [...((q.$and as Filter[] | undefined) ?? []), extra] });

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "earshot-read-parts-"));
  try {
    const store = await openEmbeddedStore({ dir, sync: "normal" });
    const { mentions } = await openMentionCollections(store);
    const next = mentionGenerator("prj_bench", "wsp_bench");
    for (let done = 0; done < N; done += 1000) {
      await store.commit(Array.from({ length: Math.min(1000, N - done) }, () => ({ kind: "insert" as const, collection: MENTIONS, doc: next() as MentionDoc })));
    }
    const sqlite = store as unknown as SqliteStore;
    const time = async (name: string, fn: () => Promise<unknown>, plan?: string[] | null) => {
      const times: number[] = [];
      let out: unknown;
      for (let i = 0; i < 5; i++) {
        const t0 = process.hrtime.bigint();
        out = await fn();
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      times.sort((a, b) => a - b);
      process.stdout.write(`${name}: ${(times[2] as number).toFixed(1)} ms (${Array.isArray(out) ? `${out.length} rows` : String(out)})\n`);
      if (plan) process.stdout.write(`  plan: ${plan.join(" | ")}\n`);
    };
    for (const days of [30, 90]) {
      const q = period(days);
      const spec: CountSpec = { buckets: { field: "publishedAt", starts: starts(days) } };
      await time(`${days} days: countBy by day`, () => mentions.countBy(q, spec), sqlite.explainCountBy(MENTIONS, q, spec));
      await time(`${days} days: count`, () => mentions.count(q), sqlite.explainCount(MENTIONS, q));
      const sov = and(q, { groupIds: { $in: ["kwg_0"] } });
      await time(`${days} days: count of one group (share of voice)`, () => mentions.count(sov), sqlite.explainCount(MENTIONS, sov));
      // With a filter the side table does not hold, the period's matching mentions are walked, each probed.
      const open = and({ ...q, status: "open" }, { groupIds: { $in: ["kwg_0"] } });
      await time(`${days} days: count of one group, status open`, () => mentions.count(open), sqlite.explainCount(MENTIONS, open));
    }
    // The three list filters above 1.5x through the API: their plans and a first page's time.
    const { mentionQuery } = await import("../services/mention/src/domain/filters");
    const LISTS: Array<[string, Record<string, unknown>]> = [
      ["author", { author: ["user42"] }],
      ["categoryId cat_2", { categoryId: ["cat_2"] }],
      ["status open + source x + q", { status: ["open"], source: ["x"], q: "w3" }],
    ];
    const sort: Record<string, 1 | -1> = { publishedAt: -1, _id: -1 };
    // Statistics, as the store gathers them when it opens (the API serves a store opened after the import).
    sqlite.optimize();
    for (const [name, f] of LISTS) {
      const q = mentionQuery("prj_bench", f);
      await time(`list ${name}: first page`, () => mentions.findPage(q, { limit: 25, sortField: "publishedAt", direction: -1 }).then((p) => p.items), sqlite.explainFind(MENTIONS, q, { sort, limit: 26 }));
      let cursor: string | null = null;
      for (let i = 0; i < 9; i++) cursor = (await mentions.findPage(q, { limit: 25, cursor, sortField: "publishedAt", direction: -1 })).nextCursor;
      if (!cursor) continue;
      const behind = { $and: [q, afterCursorFilter(cursor as string, "publishedAt", -1)] };
      await time(`list ${name}: tenth page`, () => mentions.findPage(q, { limit: 25, cursor, sortField: "publishedAt", direction: -1 }).then((p) => p.items), sqlite.explainFind(MENTIONS, behind, { sort, limit: 26 }));
    }
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

runBench(main);
