// Store-level analytics counts on the embedded store (no gRPC): `countBy` and `count` over the mention
// service's collections at 10,000 and 100,000 generated mentions of one project, the queries
// get_mention_analytics sends. The `q` word is asked two ways in the same store and the same run: as the
// service asks it (`{ words: w }`, served by the words' full-text index) and as `{ words: { $in: [w] } }`,
// which means the same but is said by testing each row's array (how every `q` count ran before the text
// index). Median of 5 reads each.
// Usage: node services/platform/test/ts-child.js bench/count-by-bench.ts
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CountSpec, type Filter, openEmbeddedStore } from "@earshot/platform";
import { type MentionDoc, MENTIONS, openMentionCollections } from "../services/mention/src/store";
import { mentionGenerator } from "./mention-data";
import { runBench } from "./bench-support";

const SIZES = [10_000, 100_000];
const DAY = 86_400_000;
const END = Date.parse("2026-06-30T00:00:00Z");
const starts = (days: number, step: number) => Array.from({ length: Math.ceil(days / step) }, (_, i) => new Date(END - days * DAY + i * step * DAY));
const period = (days: number): Filter => ({ projectId: "prj_bench", publishedAt: { $gte: new Date(END - days * DAY), $lt: new Date(END) } });
const withWord = (f: Filter, w: unknown): Filter => ({ ...f, $and: [{ words: w }] });

const READS: Array<[string, Filter, CountSpec | null]> = [
  ["count, 30 days", period(30), null],
  ["30 days by day", period(30), { buckets: { field: "publishedAt", starts: starts(30, 1) } }],
  ["90 days by day, by source", period(90), { by: "source", buckets: { field: "publishedAt", starts: starts(90, 1) } }],
  ["30 days by keyword", period(30), { by: "keywordIds", buckets: { field: "publishedAt", starts: starts(30, 1) } }],
  ["30 days by category, source reddit", { ...period(30), source: "reddit" }, { by: "categoryId", buckets: { field: "publishedAt", starts: starts(30, 1) } }],
  ["count, 90 days, q (text index)", withWord(period(90), "w8"), null],
  ["count, 90 days, q (array test)", withWord(period(90), { $in: ["w8"] }), null],
  ["90 days by week by sentiment, q (text index)", withWord(period(90), "w8"), { by: "sentiment.label", buckets: { field: "publishedAt", starts: starts(90, 7) } }],
  ["90 days by week by sentiment, q (array test)", withWord(period(90), { $in: ["w8"] }), { by: "sentiment.label", buckets: { field: "publishedAt", starts: starts(90, 7) } }],
];

const main = async () => {
  const results = new Map<string, number[]>();
  for (const n of SIZES) {
    const dir = await mkdtemp(join(tmpdir(), "earshot-count-bench-"));
    try {
      const store = await openEmbeddedStore({ dir, sync: "normal" });
      const { mentions } = await openMentionCollections(store);
      const next = mentionGenerator("prj_bench", "wsp_bench");
      for (let done = 0; done < n; done += 1000) {
        await store.commit(Array.from({ length: Math.min(1000, n - done) }, () => ({ kind: "insert" as const, collection: MENTIONS, doc: next() as MentionDoc })));
      }
      for (const [name, filter, spec] of READS) {
        const times: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t0 = process.hrtime.bigint();
          if (spec) await mentions.countBy(filter, spec);
          else await mentions.count(filter);
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        times.sort((a, b) => a - b);
        results.set(name, [...(results.get(name) ?? []), times[2] as number]);
      }
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  for (const [name, [a, b]] of results) {
    process.stdout.write(`${name}: ${a?.toFixed(1)} ms at 10,000, ${b?.toFixed(1)} ms at 100,000 (${((b ?? 0) / (a ?? 1)).toFixed(2)}x)\n`);
  }
};

runBench(main);
