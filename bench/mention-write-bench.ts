// What the mention service's list indexes cost its writes on the embedded store: 10,000 generated mentions
// committed in units of 100 into a fresh file-backed store (WAL, synchronous=FULL) with
//   - base: the unique postKey index and (projectId, publishedAt, _id) only;
//   - scalar: base + one (projectId, field, publishedAt, _id) index per scalar list filter;
//   - all: what the service declares (openMentionCollections): keywordIds and groupIds through side tables of
//     one row per element, words through a full-text index (declared `text`);
//   - side: the same with words through a side table too (one row per word), as before the text index.
// Same process, each shape twice in alternating order (the machine is shared: compare the ratios).
// Usage: node services/platform/test/ts-child.js bench/mention-write-bench.ts [N]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbeddedStore } from "@earshot/platform";
import { MENTION_FILTER_INDEXES, type MentionDoc, MENTIONS, openMentionCollections } from "../services/mention/src/store";
import { mentionGenerator } from "./mention-data";
import { runBench } from "./bench-support";

const N = Number(process.argv[2] ?? 10_000);
const ARRAYS = new Set(["keywordIds", "groupIds", "words"]);
type Shape = "base" | "scalar" | "all" | "side";

const run = async (shape: Shape): Promise<number> => {
  const dir = await mkdtemp(join(tmpdir(), "earshot-write-bench-"));
  try {
    const store = await openEmbeddedStore({ dir });
    if (shape === "all") await openMentionCollections(store);
    else {
      const mentions = store.collection<MentionDoc>(MENTIONS);
      await mentions.ensureIndex({ fields: { postKey: 1 }, unique: true });
      await mentions.ensureIndex({ fields: { projectId: 1, publishedAt: -1, _id: -1 } });
      if (shape === "scalar") {
        for (const f of MENTION_FILTER_INDEXES) if (!ARRAYS.has(f)) await mentions.ensureIndex({ fields: { projectId: 1, [f]: 1, publishedAt: -1, _id: -1 } });
      }
      if (shape === "side") {
        for (const f of MENTION_FILTER_INDEXES) await mentions.ensureIndex({ fields: { projectId: 1, [f]: 1, publishedAt: -1, _id: -1 } });
        await mentions.ensureIndex({ fields: { workspaceId: 1, matchedAt: 1 } });
        await mentions.ensureIndex({ fields: { categoryId: 1 } });
      }
    }
    const next = mentionGenerator("prj_bench", "wsp_bench");
    const t0 = process.hrtime.bigint();
    for (let done = 0; done < N; done += 100) {
      await store.commit(Array.from({ length: Math.min(100, N - done) }, () => ({ kind: "insert" as const, collection: MENTIONS, doc: next() })));
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    await store.close();
    return ms;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const main = async () => {
  const times: Record<Shape, number[]> = { base: [], scalar: [], all: [], side: [] };
  for (const order of [["base", "scalar", "all", "side"], ["side", "all", "scalar", "base"]] as Shape[][]) {
    for (const shape of order) times[shape].push(await run(shape));
  }
  const base = Math.min(...times.base);
  for (const shape of ["base", "scalar", "all", "side"] as Shape[]) {
    const best = Math.min(...times[shape]);
    process.stdout.write(`${shape}: ${N} mentions in ${best.toFixed(0)} ms (best of 2), ${Math.round((N / best) * 1000)}/s, ${(best / base).toFixed(2)}x base\n`);
  }
};

runBench(main);
