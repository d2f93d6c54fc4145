// The embedded store (SQLite, on disk, synchronous commits) under a year's worth of mentions: N mention-like
// documents committed through the store port in units of 100 with one outbox event each (as an import
// commits them), then the import rate, the process's RSS, the disk size, and a restart measured in a fresh
// process: time to open the store and ensure its indexes, a first page, and that process's RSS.
// Usage: node services/platform/test/ts-child.js bench/store-bench.ts [N]   (default 100000)
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DocumentStore, openEmbeddedStore, type Write } from "@earshot/platform";
import { runBench } from "./bench-support";

const PROJECT = "prj_01JBENCHSTORE000000000001";
const UNIT = 100;
const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

const ensureIndexes = async (store: DocumentStore) => {
  const mentions = store.collection("mentions");
  await mentions.ensureIndex({ fields: { postKey: 1 }, unique: true });
  await mentions.ensureIndex({ fields: { projectId: 1, publishedAt: -1 } });
  await mentions.ensureIndex({ fields: { workspaceId: 1, matchedAt: 1 } });
  await store.collection("outbox").ensureIndex({ fields: { publishedAt: 1 }, expireAfterSeconds: 7 * 24 * 3600 });
};

const mention = (i: number) => ({
  _id: `men_${String(i).padStart(26, "0")}`,
  projectId: PROJECT,
  workspaceId: "wsp_bench",
  source: ["x", "reddit", "youtube", "linkedin"][i % 4],
  postKey: `${PROJECT}|x|post-${i}`,
  url: `https://example.com/post-${i}`,
  text: `post number ${i} about acme and the things people say about it, long enough to look like a real post`,
  author: { id: `u${i % 5000}`, handle: `user${i % 5000}`, name: "Someone" },
  publishedAt: new Date(Date.UTC(2026, 0, 1) + i * 30_000),
  matchedAt: new Date(Date.UTC(2026, 0, 1) + i * 30_000),
  keywordIds: [`kw_${i % 20}`],
  sentiment: { label: "neutral", score: 0 },
  status: "open",
});

const dirSize = async (dir: string): Promise<number> => {
  let total = 0;
  for (const d of await readdir(dir, { withFileTypes: true })) total += d.isDirectory() ? await dirSize(join(dir, d.name)) : (await stat(join(dir, d.name))).size;
  return total;
};

const reopen = async (dir: string) => {
  const started = performance.now();
  const store = await openEmbeddedStore({ dir });
  await ensureIndexes(store);
  const ready = performance.now() - started;
  const times: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i += 1) {
    const t = performance.now();
    const page: { nextCursor: string | null } = await store.collection("mentions").findPage({ projectId: PROJECT }, { limit: 25, sortField: "publishedAt", direction: -1, cursor });
    cursor = page.nextCursor;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  await store.close();
  process.stdout.write(JSON.stringify({ ready, pageP95: times[Math.floor(times.length * 0.95)], rss: process.memoryUsage().rss }));
};

const main = async () => {
  if (process.argv[2] === "reopen") return reopen(process.argv[3] as string);
  const n = Number(process.argv[2] ?? 100_000);
  const dir = await mkdtemp(join(tmpdir(), "earshot-store-bench-"));
  try {
    const store = await openEmbeddedStore({ dir });
    await ensureIndexes(store);
    const started = performance.now();
    for (let i = 0; i < n; i += UNIT) {
      const writes: Write[] = [];
      for (let j = i; j < Math.min(n, i + UNIT); j += 1) {
        writes.push({ kind: "insert", collection: "mentions", doc: mention(j) });
        writes.push({ kind: "insert", collection: "outbox", doc: { _id: `evt_${j}`, topic: "earshot.mention.v1", createdAt: new Date() } as never });
      }
      await store.commit(writes);
    }
    const seconds = (performance.now() - started) / 1000;
    const rssAfter = process.memoryUsage().rss;
    await store.close();
    const restart = JSON.parse(execFileSync(process.execPath, [join(__dirname, "../services/platform/test/ts-child.js"), __filename, "reopen", dir], { encoding: "utf8" }).trim()) as {
      ready: number;
      pageP95: number;
      rss: number;
    };
    console.log(`${new Date().toISOString().slice(0, 10)} embedded store (SQLite), ${n} mentions in units of ${UNIT} (+1 outbox event each)`);
    console.log(`  import ${Math.round(n / seconds)} mentions/s (${seconds.toFixed(1)} s), RSS after import ${mb(rssAfter)}, disk ${mb(await dirSize(dir))}`);
    console.log(`  restart to ready (open + indexes) ${restart.ready.toFixed(0)} ms, list page (25, by publishedAt) p95 ${restart.pageP95.toFixed(1)} ms, RSS after restart ${mb(restart.rss)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

runBench(main);
