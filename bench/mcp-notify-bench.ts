// How soon an MCP client subscribed to a project's mentions hears of a new one: the all-in-one
// (BENCH_SHAPE, in-process by default), the MCP SDK client (Client + StreamableHTTPClientTransport, as an
// agent connects) subscribed to earshot://projects/{id}/mentions, then BENCH_POSTS (200) posts imported one
// at a time through the mention service's ingestion (what the collectors and `earshot posts import` use).
// Latency = from the ingest call to the notifications/resources/updated arriving at the client: the store
// write, the outbox relay, the bus, the gateway's consumer, the credential and membership checks, the SSE
// write and the client's parsing. Posts are BENCH_GAP_MS (150) apart, more than the 100 ms per-URI
// coalescing window, so each notification is its own. With BENCH_VIEW=1 the client subscribes to a saved
// view instead (each mention then costs a list_mentions of the view as the session's caller).
// Usage: node services/platform/test/ts-child.js bench/mcp-notify-bench.ts (after make build).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createGrpcClient, readCallKeys } from "@earshot/platform";
import { commonV1, mentionV1 } from "@earshot/proto";
import { type Shape, seed, startShape } from "./api-setup";
import { percentile, runBench, sleep } from "./bench-support";

const POSTS = Number(process.env.BENCH_POSTS ?? 200);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 150);
const VIEW = process.env.BENCH_VIEW === "1";

const main = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "earshot-notify-bench-"));
  const shape = (process.env.BENCH_SHAPE ?? "in-process") as Shape;
  const running = await startShape(shape, dataDir);
  try {
    const { apiKey, projectId } = await seed(running.base, dataDir, 1);
    const auth = { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" };
    let uri = `earshot://projects/${projectId}/mentions`;
    if (VIEW) {
      const res = await fetch(`${running.base}/api/v1/mention-views`, { method: "POST", headers: auth, body: JSON.stringify({ projectId, name: "X only", filters: { source: ["x"] } }) });
      uri = `earshot://views/${((await res.json()) as { data: { id: string } }).data.id}/mentions`;
    }
    const client = new Client({ name: "earshot-notify-bench", version: "1.0.0" });
    let arrived: (() => void) | undefined;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri === uri) arrived?.();
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }));
    await client.subscribeResource({ uri });

    const services = JSON.parse(await readFile(join(dataDir, "services.json"), "utf8")) as Record<string, string>;
    const mention = createGrpcClient(mentionV1.MentionServiceClient, services.mention as string, { ...(await readCallKeys(dataDir)), deadlineMs: 60_000 });
    const post = (i: number): mentionV1.Post => ({
      projectId,
      source: commonV1.Source.SOURCE_X,
      sourceId: `notify-${i}`,
      url: `https://x.com/someone/status/notify-${i}`,
      text: `Brand 0 notify post ${i}`,
      author: { id: `u${i}`, handle: `user${i}`, name: `User ${i}` },
      // Newer than anything seeded, so the mention is on the first page of the view.
      publishedAt: new Date(Date.now() + i),
    });
    const latencies: number[] = [];
    for (let i = 0; i < POSTS + 10; i++) {
      const told = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no notification for post ${i} within 10 s`)), 10_000);
        arrived = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      const t = performance.now();
      const res = await mention.client.ingestPosts({ posts: [post(i)] });
      if (res.created !== 1) throw new Error(`post ${i} was not stored: ${JSON.stringify(res)}`);
      await told;
      if (i >= 10) latencies.push(performance.now() - t);
      await sleep(GAP_MS);
    }
    mention.close();
    await client.close();
    const sorted = [...latencies].sort((a, b) => a - b);
    const f = (p: number) => percentile(sorted, p).toFixed(1);
    process.stdout.write(
      `MCP notification latency (${shape}, ${VIEW ? "a saved view" : "a project"}) — node ${process.version}, ${POSTS} posts, ${GAP_MS} ms apart\n` +
        `  import -> notifications/resources/updated at the SDK client: p50 ${f(50)} ms   p95 ${f(95)} ms   p99 ${f(99)} ms   max ${f(100)} ms\n`,
    );
  } finally {
    await running.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

runBench(main);
