import { makeTempDir, waitFor } from "../testing/tmp";
import { describeBusContract } from "./bus-contract-test-support";
import { createInProcessBus, type InProcessBus } from "./in-process";
import type { DeliveredMessage } from "./port";
import { openSqliteBusLog } from "./sqlite-log";

// The in-process bus with its log in SQLite (the embedded default): the same contract as in memory, and
// what a restart finds: every group where it was.

const HOUR = 3600 * 1000;

let n = 0;
describeBusContract(
  "in-process on SQLite",
  async () => {
    const tmp = await makeTempDir();
    const log = await openSqliteBusLog({ dir: tmp.dir, sync: "normal", retainMs: HOUR });
    return { bus: createInProcessBus({ log }), topic: (name) => `test.${name}.${++n}`, cleanup: tmp.cleanup };
  },
  3_000,
);

describe("in-process bus on SQLite across restarts", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let clock: number;
  const open = async (): Promise<InProcessBus> =>
    createInProcessBus({ log: await openSqliteBusLog({ dir: tmp.dir, sync: "normal", retainMs: HOUR, now: () => clock }), wait: async () => undefined });
  const collect = async (bus: InProcessBus, groupId: string, got: string[]) =>
    bus.subscribe({ groupId, topics: ["t"] }, async (m: DeliveredMessage) => void got.push(m.value));
  const publish = (bus: InProcessBus, ...values: string[]) => bus.publish(values.map((value, i) => ({ topic: "t", key: `k${i % 3}`, value })));

  beforeEach(async () => {
    tmp = await makeTempDir();
    clock = Date.UTC(2026, 10, 26);
  });
  afterEach(() => tmp.cleanup());

  it("resumes a group after the last message it handled, without seeing the earlier ones again", async () => {
    const first = await open();
    const before: string[] = [];
    await collect(first, "g", before);
    await publish(first, "1", "2", "3", "4", "5");
    expect([...before].sort()).toEqual(["1", "2", "3", "4", "5"]);
    await first.close();

    const second = await open();
    const after: string[] = [];
    await collect(second, "g", after);
    await publish(second, "6", "7");
    await waitFor(() => after.length >= 2);
    expect([...after].sort()).toEqual(["6", "7"]);
    await second.close();
  });

  it("keeps what was published while a group was away (stopped or not yet subscribed after a restart) for that group", async () => {
    const first = await open();
    const got: string[] = [];
    const sub = await collect(first, "g", got);
    await publish(first, "1");
    await sub.stop();
    await publish(first, "2", "3");
    await first.close();

    const second = await open();
    // Published before the group subscribes in this process, as a service's relay may at start.
    await publish(second, "4");
    await collect(second, "g", got);
    await waitFor(() => got.length >= 4);
    expect([...got].sort()).toEqual(["1", "2", "3", "4"]);
    await second.close();
  });

  it("starts a group new to the log at the oldest message kept, across a restart", async () => {
    const first = await open();
    await publish(first, "1", "2");
    await first.close();
    const second = await open();
    const got: string[] = [];
    await collect(second, "new", got);
    await waitFor(() => got.length >= 2);
    expect([...got].sort()).toEqual(["1", "2"]);
    await second.close();
  });

  it("keeps offsets growing after every message was deleted by retention, so a stored position never skips new ones", async () => {
    const first = await open();
    const got: string[] = [];
    await collect(first, "g", got);
    await publish(first, "1", "2", "3");
    await first.close();
    clock += 2 * HOUR;
    const second = await open();
    await publish(second, "4");
    await collect(second, "g", got);
    await waitFor(() => got.length >= 4);
    expect([...got].sort()).toEqual(["1", "2", "3", "4"]);
    await second.close();
  });

  it("deletes messages older than the retention, except those a subscribed group still has to handle", async () => {
    const log = await openSqliteBusLog({ dir: tmp.dir, sync: "normal", retainMs: HOUR, now: () => clock });
    const bus = createInProcessBus({ log, wait: async () => undefined, partitions: 1 });
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((r) => (release = r));
    const slow: string[] = [];
    await bus.subscribe({ groupId: "slow", topics: ["t"] }, async (m) => {
      await blocked;
      slow.push(m.value);
    });
    const published = publish(bus, "1", "2", "3");
    clock += 2 * HOUR;
    log.sweep();
    // The slow group is still on the first message: nothing it has not handled goes.
    expect(log.base("t", 0)).toBe(0);
    release();
    await published;
    log.sweep();
    expect(log.base("t", 0)).toBe(3);
    expect(log.read("t", 0, 0, 10)).toEqual([]);
    expect(slow).toEqual(["1", "2", "3"]);
    await bus.close();
  });

  it("forgets the position of a group gone for longer than the retention", async () => {
    const first = await open();
    await collect(first, "per-process", []);
    await publish(first, "1");
    await first.close();
    clock += 2 * HOUR;
    const log = await openSqliteBusLog({ dir: tmp.dir, sync: "normal", retainMs: HOUR, now: () => clock });
    expect(log.positions("per-process").size).toBe(0);
    await log.close();
  });
});
