// Platform micro-benchmarks on this machine: embedded store, a real loopback gRPC hop, and the outbox
// relay over the in-process bus. Run with `make bench`; results are recorded in bench/README.md.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { accountService } from "@earshot/account";
import {
  createGrpcClient,
  createInProcessBus,
  createMailer,
  hostService,
  InProcessChannel,
  loadConfig,
  baseConfigSchema,
  openEmbeddedStore,
  Outbox,
  OutboxRelay,
  silentLogger,
  subscribeEvents,
  systemClock,
  topicForDomain,
} from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { runBench } from "./bench-support";

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const rows: Array<[string, string]> = [];
const record = (name: string, value: string) => {
  rows.push([name, value]);
  process.stdout.write(`${name.padEnd(58)} ${value}\n`);
};

const storeBench = async (dir: string) => {
  const store = await openEmbeddedStore({ dir: join(dir, "store") });
  const items = store.collection<{ _id: string; n: number; name: string }>("items");
  await items.ensureIndex({ fields: { name: 1 }, unique: true });
  const N = 20_000;
  let t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await items.insertOne({ _id: `itm_${String(i).padStart(6, "0")}`, n: i, name: `name-${i}` });
  record(`embedded store: ${N} sequential inserts (file-backed)`, `${ms(t).toFixed(0)} ms (${((N / ms(t)) * 1000).toFixed(0)}/s)`);
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await items.findById(`itm_${String(i).padStart(6, "0")}`);
  record(`embedded store: ${N} findById`, `${((ms(t) * 1000) / N).toFixed(1)} µs each`);
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await items.findOne({ name: `name-${i}` });
  record(`embedded store: ${N} findOne on a unique index`, `${((ms(t) * 1000) / N).toFixed(1)} µs each`);
  await store.close();
  t = process.hrtime.bigint();
  const again = await openEmbeddedStore({ dir: join(dir, "store") });
  await again.collection("items").count({});
  record(`embedded store: reopen and load ${N} documents`, `${ms(t).toFixed(0)} ms`);
  await again.close();
};

const grpcBench = async (dir: string) => {
  const config = loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: join(dir, "grpc"), LOG_LEVEL: "silent" });
  const logger = silentLogger();
  const bus = createInProcessBus();
  const mailer = createMailer({ from: "bench@earshot.local", dataDir: config.EARSHOT_DATA_DIR, logger });
  // The same service answers both clients: over its loopback gRPC port, and through the in-process
  // channel the all-in-one's gateway uses (same codec, metadata checks, errors and deadlines, no socket).
  const inProcess = new InProcessChannel();
  const hosted = await hostService(accountService, { config, host: "127.0.0.1", port: 0, bus, logger, mailer, inProcess });
  const clients = [
    { name: "loopback", ...createGrpcClient(accountV1.AccountServiceClient, hosted.address) },
    { name: "in-process channel", ...createGrpcClient(accountV1.AccountServiceClient, hosted.address, { inProcess }) },
  ];
  const { user } = await clients[0]!.client.createUser({ email: "bench@example.com", name: "Bench", password: "benchmark-password" });
  const N = 5_000;
  for (const { name, client } of clients) {
    for (let i = 0; i < 500; i++) await client.getUser({ id: user!.id });
    let t = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await client.getUser({ id: user!.id });
    record(`gRPC hop: ${N} sequential GetUser (${name}, embedded store)`, `${((ms(t) * 1000) / N).toFixed(0)} µs each`);
    t = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next++ < N) await client.getUser({ id: user!.id });
      }),
    );
    record(`gRPC hop: ${N} GetUser, 50 concurrent (${name})`, `${((N / ms(t)) * 1000).toFixed(0)} calls/s`);
  }
  for (const c of clients) c.close();
  await hosted.stop(1000);
  await bus.close();
};

const outboxBench = async (dir: string) => {
  const store = await openEmbeddedStore({ dir: join(dir, "outbox") });
  const consumerStore = await openEmbeddedStore({ dir: join(dir, "consumer") });
  const bus = createInProcessBus();
  const outbox = new Outbox(store, systemClock, "project");
  await outbox.ensureIndexes();
  let handled = 0;
  await subscribeEvents({
    bus, store: consumerStore, clock: systemClock, logger: silentLogger(), groupId: "bench", topics: [topicForDomain("project")],
    handle: async () => void (handled += 1),
  });
  const relay = new OutboxRelay({ store, bus, clock: systemClock, logger: silentLogger(), outbox, pollMs: 50 });
  relay.start();
  const N = 2_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    await outbox.commit(
      [{ kind: "insert", collection: "projects", doc: { _id: `prj_${i}` } }],
      [{ type: "project.created", source: "bench", key: `prj_${i}`, data: { i } }],
    );
  }
  const committed = ms(t);
  while (handled < N) await new Promise((r) => setTimeout(r, 5));
  record(`outbox: ${N} commits (state + event, journaled)`, `${((committed * 1000) / N).toFixed(0)} µs each`);
  record(`outbox: ${N} events committed, relayed and handled once`, `${ms(t).toFixed(0)} ms`);
  await relay.stop();
  await bus.close();
  await store.close();
  await consumerStore.close();
};

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "earshot-bench-"));
  try {
    process.stdout.write(`node ${process.version}, ${new Date().toISOString()}\n`);
    await storeBench(dir);
    await grpcBench(dir);
    await outboxBench(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

runBench(main);
