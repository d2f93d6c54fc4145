// Summarises a V8 CPU profile (node --cpu-prof; the API benchmarks write one with BENCH_CPU_PROF=<dir>)
// by what the time was spent on, and lists the functions with the most self and inclusive time.
// Usage: node bench/profile-summary.js <file.cpuprofile> [last seconds only] [top N]
// The window (e.g. 10.5 for the last measured run of a shape) leaves start-up and seeding out.
"use strict";
const fs = require("node:fs");

const [file, windowSeconds = "0", topArg = "25"] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node bench/profile-summary.js <file.cpuprofile> [last seconds] [top N]\n");
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Each sample goes to the category of the frame nearest its leaf that names one; generic Node internals
// (streams, events, timers) take the category of the code that called them.
const CATEGORIES = [
  [/\/store\/|better-sqlite3|nedb/, "store (SQLite read, documents revived)"],
  [/services\/[a-z-]+\/(dist|src)\/(domain|rpc)\//, "service handler (rpc adapter, domain)"],
  [/grpc-js|internal\/http2|@bufbuild|proto\/(dist|src)|platform\/(dist|src)\/grpc/, "service call (grpc-js, HTTP/2, codec, caller checks)"],
  [/@modelcontextprotocol|@hono|ajv|json-schema/, "MCP SDK (protocol, transport, schemas)"],
  [/services\/edge\/(dist|src)/, "edge (pipeline, auth, rate limit, presenters, routes)"],
  [/express|router|_http_|body-parser|raw-body|parseurl|on-finished|path-to-regexp|helmet|prom-client|finalhandler|mime|content-type|type-is|qs\//, "HTTP server (node:http, express)"],
  [/async_hooks/, "async context (AsyncLocalStorage)"],
  [/zod/, "zod"],
];

const timestamps = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) timestamps.push((t += d));
const from = Number(windowSeconds) > 0 ? profile.endTime - Number(windowSeconds) * 1e6 : 0;

const frameName = (n) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/.*node_modules\//, "").replace(/.*\/services\//, "services/")}:${n.callFrame.lineNumber + 1}`;
const category = new Map();
const self = new Map();
const inclusive = new Map();
let total = 0;
const add = (map, key, d) => map.set(key, (map.get(key) ?? 0) + d);
profile.samples.forEach((id, i) => {
  if (timestamps[i] < from) return;
  const d = profile.timeDeltas[i] ?? 0;
  total += d;
  const leaf = byId.get(id);
  add(self, frameName(leaf), d);
  let found = ["(garbage collector)", "(idle)", "(program)"].includes(leaf.callFrame.functionName) ? leaf.callFrame.functionName : undefined;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur);
    const name = frameName(n);
    if (!seen.has(name)) {
      seen.add(name);
      add(inclusive, name, d);
    }
    if (!found) for (const [re, cat] of CATEGORIES) if (re.test(n.callFrame.url)) found = cat;
  }
  add(category, found ?? "other (microtasks, sockets, timers)", d);
});

const top = (map, n) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
    .join("\n");
const n = Number(topArg);
process.stdout.write(`${(total / 1e6).toFixed(1)} s of samples\n\nby category:\n${top(category, 20)}\n\nself time:\n${top(self, n)}\n\ninclusive time:\n${top(inclusive, n)}\n`);
