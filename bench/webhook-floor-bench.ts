// The floor under the pipeline benchmark: how many signed webhook deliveries a second this machine can
// send and verify at all, with nothing else running (no store, no bus, no import). The sender is the
// delivery service's own (`guardedSender`: the guarded request, TLS verified against the test CA, connections
// kept alive), signing is the service's own (`signatureHeader`), the headers are the ones an attempt sends,
// and the bodies are `mention.created` payloads built from the ingestion corpus's posts (about the size of
// the real ones). The receiver is the pipeline benchmark's (`receiver-test-support.ts`), verifying every
// request with the `standardwebhooks` package and counting it by (endpoint, webhook-id).
//
// Concurrency is the delivery worker's defaults: at most 8 attempts at once per endpoint and 64 in all, over
// 10 endpoints (so 6 or 7 a endpoint). Two shapes, one after the other in the same run, each measured over
// BENCH_SECONDS after a warm-up:
// - split: the receiver in a child process, the sender in this one (in the pipeline benchmark the receiver
//   is in the benchmark's process and the sender in the all-in-one's);
// - one process: sender and receiver together in this process.
// It prints verified deliveries a second and the CPU each side used per 1,000 deliveries (CPU from
// process.cpuUsage() and the child's /proc stat), so what the deliveries cost in cores reads directly, and
// the rate all the machine's cores would give doing nothing else (cores / CPU per delivery): on a shared
// machine the processes get only their share of the cores, so that is the figure to compare with an aim.
// Usage: node services/platform/test/ts-child.js bench/webhook-floor-bench.ts (after make build).
// BENCH_SECONDS (10), BENCH_ROUNDS (2: split and one process alternately), BENCH_ENDPOINTS (10),
// BENCH_PER_ENDPOINT (8), BENCH_TOTAL (64) change it.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { Webhook } from "standardwebhooks";
import { payloadOf } from "../services/webhook/src/domain/delivery-doc";
import { signatureHeader } from "../services/webhook/src/domain/signing";
import { type Received, startReceiver } from "../services/webhook/src/receiver-test-support";
import { guardedSender } from "../services/webhook/src/sender";
import { keywordValues, postLine } from "./post-corpus";
import { cpuSecondsOf, runBench, sleep } from "./bench-support";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
const PER_ENDPOINT = Number(process.env.BENCH_PER_ENDPOINT ?? 8);
const TOTAL = Number(process.env.BENCH_TOTAL ?? 64);
const WARM_UP_MS = 2_000;

const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** What a receiver verified: distinct (endpoint, webhook-id) pairs, duplicates and refused signatures. */
interface Counts {
  verified: number;
  duplicates: number;
  refused: number;
}

/** The receiver's side: verify each request against its endpoint's secret and count it. */
const verifyingReceiver = async (secrets: readonly string[]) => {
  const receiver = await startReceiver();
  const verifiers = new Map(secrets.map((s, i) => [`/hooks/${i}`, new Webhook(s)]));
  const seen = new Set<string>();
  const counts: Counts = { verified: 0, duplicates: 0, refused: 0 };
  receiver.answer((r: Received) => {
    receiver.received.length = 0; // the test receiver keeps every request; here only the counts matter
    try {
      const verifier = verifiers.get(r.path);
      if (!verifier) throw new Error(`no endpoint at ${r.path}`);
      verifier.verify(r.body, r.headers as Record<string, string>);
    } catch {
      counts.refused += 1;
      return { status: 400 };
    }
    const key = `${r.path} ${String(r.headers["webhook-id"])}`;
    if (seen.has(key)) counts.duplicates += 1;
    else {
      seen.add(key);
      counts.verified += 1;
    }
    return { status: 200 };
  });
  return { receiver, counts };
};

/** A receiver in a child process (this file with `receiver`), spoken to over IPC. */
const childReceiver = async (secrets: readonly string[]) => {
  const child: ChildProcess = spawn(process.execPath, [resolve(__dirname, "../services/platform/test/ts-child.js"), __filename, "receiver"], {
    env: { ...process.env, BENCH_SECRETS: JSON.stringify(secrets) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [ready] = (await once(child, "message")) as [{ port: number; ca: string }];
  const counts = async (): Promise<Counts> => {
    child.send("counts");
    const [c] = (await once(child, "message")) as [Counts];
    return c;
  };
  return { port: ready.port, ca: ready.ca, pid: child.pid as number, counts, close: async () => {
    child.kill("SIGTERM");
    await once(child, "exit").catch(() => undefined);
  } };
};

const runReceiverChild = async () => {
  const { receiver, counts } = await verifyingReceiver(JSON.parse(process.env.BENCH_SECRETS ?? "[]") as string[]);
  process.on("message", (m) => {
    if (m === "counts") process.send?.(counts);
  });
  process.on("SIGTERM", () => void receiver.close().then(() => process.exit(0)));
  process.send?.({ port: receiver.port, ca: receiver.ca });
};

/** mention.created bodies as the delivery service builds them (the mention as get_mention presents it, and its context), from the ingestion corpus's posts. */
const bodies = (n: number): string[] => {
  const brands = keywordValues(1_000);
  return Array.from({ length: n }, (_, i) => {
    const post = JSON.parse(postLine(i, brands)) as Record<string, unknown> & { author: Record<string, unknown>; metrics: Record<string, number> };
    const now = new Date().toISOString();
    const keyword = { id: "kwd_0123456789abcdef", value: brands[i % brands.length] ?? "", groupId: "kwg_0123456789abcdef" };
    const data = {
      id: `mnt_${randomBytes(10).toString("hex")}`,
      projectId: "prj_0123456789abcdef",
      title: null,
      lang: null,
      parentId: null,
      ...post,
      author: { url: null, ...post.author },
      keywordIds: [keyword.id],
      groupIds: [keyword.groupId],
      matches: [{ keywordId: keyword.id, term: keyword.value, field: "text", start: 10, end: 22 }],
      sentiment: { label: "neutral", score: 0, method: "lexicon" },
      status: "open",
      categoryId: null,
      collectedAt: now,
      matchedAt: now,
      updatedAt: now,
      history: [],
    };
    return payloadOf("mention.created", now, data, { workspaceId: "wsp_0123456789abcdef", keywords: [keyword], groups: [{ id: keyword.groupId, name: "My brand" }] });
  });
};

/** Sends signed deliveries over TOTAL loops (at most PER_ENDPOINT per endpoint) until `stop()`. */
const sendLoops = (port: number, ca: string, secrets: readonly string[], payloads: readonly string[]) => {
  const send = guardedSender({ allowPrivateNetworks: true, ca });
  let stopped = false;
  let sent = 0;
  let failed = 0;
  let next = 0;
  const loops = Math.min(TOTAL, PER_ENDPOINT * secrets.length);
  const running = Array.from({ length: loops }, async (_, loop) => {
    const endpoint = loop % secrets.length;
    const url = `https://127.0.0.1:${port}/hooks/${endpoint}`;
    while (!stopped) {
      const n = next++;
      const id = `evt_${n}`;
      const body = payloads[n % payloads.length] as string;
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = { "content-type": "application/json", "user-agent": "Earshot-Webhooks/1.0", "webhook-id": id, "webhook-timestamp": String(timestamp) };
      const result = await send({ url, headers: { ...headers, "webhook-signature": signatureHeader([secrets[endpoint] as string], id, timestamp, body) }, body });
      if (result.statusCode === 200) sent += 1;
      else failed += 1;
    }
  });
  return {
    loops,
    sent: () => sent,
    failed: () => failed,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
};

interface Shape {
  name: string;
  port: number;
  ca: string;
  counts: () => Promise<Counts>;
  /** CPU seconds of the receiver's process, when it is not this one. */
  receiverCpu?: () => number;
  close: () => Promise<void>;
}

const measure = async (shape: Shape, secrets: readonly string[], payloads: readonly string[]) => {
  const loops = sendLoops(shape.port, shape.ca, secrets, payloads);
  await sleep(WARM_UP_MS); // handshakes made, JIT warm
  const c0 = await shape.counts();
  const own0 = ownCpuSeconds();
  const rcv0 = shape.receiverCpu?.() ?? 0;
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const c1 = await shape.counts();
  const seconds = (performance.now() - t0) / 1000;
  const own = ownCpuSeconds() - own0;
  const rcv = (shape.receiverCpu?.() ?? 0) - rcv0;
  await loops.stop();
  await sleep(200);
  const final = await shape.counts();
  await shape.close();
  const n = c1.verified - c0.verified;
  const cores = availableParallelism();
  const per1000 = (cpu: number) => ((cpu / n) * 1000).toFixed(2);
  const cpuLine = shape.receiverCpu
    ? `CPU per 1,000 deliveries: sender ${per1000(own)} s, receiver ${per1000(rcv)} s (cores busy: sender ${(own / seconds).toFixed(2)}, receiver ${(rcv / seconds).toFixed(2)})`
    : `CPU per 1,000 deliveries: sender and receiver ${per1000(own)} s (cores busy: ${(own / seconds).toFixed(2)})`;
  process.stdout.write(
    [
      `${shape.name}: ${n} verified in ${seconds.toFixed(1)} s = ${(n / seconds).toFixed(0)} deliveries/s (${loops.loops} at once)`,
      `  ${cpuLine}`,
      `  CPU-bound ceiling on ${cores} cores doing nothing else: ${((cores / (own + rcv)) * n).toFixed(0)} deliveries/s${shape.receiverCpu ? `; the sender alone: ${((cores / own) * n).toFixed(0)}/s` : ""}`,
      `  in all: sent ${loops.sent()}, verified ${final.verified}, duplicated ${final.duplicates}, refused ${final.refused}, failed sends ${loops.failed()}`,
      "",
    ].join("\n"),
  );
  return { rate: n / seconds, ceiling: (cores / (own + rcv)) * n };
};

const main = async () => {
  const secrets = Array.from({ length: ENDPOINTS }, () => `whsec_${randomBytes(24).toString("base64")}`);
  const payloads = bodies(2_000);
  const avg = payloads.reduce((s, b) => s + Buffer.byteLength(b), 0) / payloads.length;
  const load = (await readFile("/proc/loadavg", "utf8")).split(" ").slice(0, 3).join(" ");
  process.stdout.write(
    `\nnode ${process.version}; ${ENDPOINTS} endpoints, at most ${PER_ENDPOINT} per endpoint and ${TOTAL} in all; bodies ${avg.toFixed(0)} bytes on average; ${SECONDS} s measured per shape; load average ${load}\n`,
  );
  const rates: Record<string, Array<{ rate: number; ceiling: number }>> = { split: [], "one process": [] };
  for (let round = 0; round < ROUNDS; round++) {
    const child = await childReceiver(secrets);
    rates.split?.push(
      await measure({ name: "split (receiver in its own process)", port: child.port, ca: child.ca, counts: child.counts, receiverCpu: () => cpuSecondsOf(child.pid), close: child.close }, secrets, payloads),
    );
    const { receiver, counts } = await verifyingReceiver(secrets);
    rates["one process"]?.push(
      await measure({ name: "one process (sender and receiver together)", port: receiver.port, ca: receiver.ca, counts: () => Promise.resolve({ ...counts }), close: () => receiver.close() }, secrets, payloads),
    );
  }
  const best = (xs: Array<{ rate: number; ceiling: number }>) => `${Math.max(...xs.map((x) => x.rate)).toFixed(0)} deliveries/s (CPU-bound ceiling ${Math.max(...xs.map((x) => x.ceiling)).toFixed(0)})`;
  process.stdout.write(`best of ${ROUNDS}: split ${best(rates.split ?? [])}, one process ${best(rates["one process"] ?? [])}\n\n`);
};

if (process.argv[2] === "receiver") void runReceiverChild();
else
  runBench(main);
