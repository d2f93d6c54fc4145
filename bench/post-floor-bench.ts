// The floor under MCP's sequential latency that no server change removes: MCP calls are POSTs carrying a
// JSON-RPC body, REST reads are GETs. A bare express app (no Earshot) answers the same small JSON to a
// fetch() GET and to a fetch() POST carrying the JSON-RPC tools/call body, alternated, BENCH_CALLS (1,500)
// of each after 100 warm-up calls; once with the body parsed by express.json(), once never read.
// Usage: node services/platform/test/ts-child.js bench/post-floor-bench.ts
import type { AddressInfo } from "node:net";
import express from "express";

const CALLS = Number(process.env.BENCH_CALLS ?? 1500);
const ANSWER = { data: { id: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", name: "x".repeat(200) }, meta: { apiVersion: "2026-08-24" } };
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_project", arguments: { projectId: ANSWER.data.id } } });

const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[ms.length >> 1] as number;

const run = async (readBody: boolean) => {
  const app = express();
  app.get("/x", (_req, res) => void res.json(ANSWER));
  if (readBody) app.post("/x", express.json(), (_req, res) => void res.json(ANSWER));
  else app.post("/x", (_req, res) => void res.json(ANSWER));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  const get: number[] = [];
  const post: number[] = [];
  for (let i = 0; i < CALLS + 100; i++) {
    let t = performance.now();
    await (await fetch(url, { headers: { Authorization: "Bearer k" } })).json();
    if (i >= 100) get.push(performance.now() - t);
    t = performance.now();
    await (await fetch(url, { method: "POST", headers: { Authorization: "Bearer k", "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: BODY })).json();
    if (i >= 100) post.push(performance.now() - t);
  }
  server.closeAllConnections();
  server.close();
  const g = median(get);
  const p = median(post);
  process.stdout.write(`body ${readBody ? "parsed" : "never read"}: GET p50 ${g.toFixed(3)} ms, POST p50 ${p.toFixed(3)} ms, POST / GET ${(p / g).toFixed(2)}\n`);
};

void (async () => {
  process.stdout.write(`fetch GET versus fetch POST of a JSON-RPC body, bare express — node ${process.version}\n`);
  await run(true);
  await run(false);
})().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
