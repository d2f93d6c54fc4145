import { createInProcessBus } from "../src/bus/in-process";
import { openSqliteBusLog } from "../src/bus/sqlite-log";
import { runUntilKilled } from "./kill-after-acks";
import { makeTempDir, waitFor } from "../src/testing/tmp";

// Kills a real process with SIGKILL while it publishes to the in-process bus on SQLite, one group consuming,
// then checks what a restart finds: every acknowledged message in the log once, and the group resuming
// near where it was (at most the last few handled messages again), not from the start and not past a gap.

describe("in-process bus on SQLite across kill -9", () => {
  it("keeps every acknowledged message once, and the consumer group resumes where it was", async () => {
    const tmp = await makeTempDir();
    try {
      const lastAcked = await runUntilKilled("bus-crash-child", tmp.dir, 300);
      expect(lastAcked).toBeGreaterThanOrEqual(299);
      const bus = createInProcessBus({ log: await openSqliteBusLog({ dir: tmp.dir, retainMs: 3600 * 1000 }) });
      const everything: number[] = [];
      const resumed: number[] = [];
      await bus.subscribe({ groupId: "reader", topics: ["t"] }, async (m) => void everything.push(Number(m.value)));
      await bus.subscribe({ groupId: "consumer", topics: ["t"] }, async (m) => void resumed.push(Number(m.value)));
      await waitFor(() => everything.length > lastAcked);
      const last = everything.length - 1;
      // Every acknowledged message, in order, once; maybe one more whose ack the kill cut off.
      expect(everything).toEqual(Array.from({ length: last + 1 }, (_, i) => i));
      expect(last).toBeGreaterThanOrEqual(lastAcked);
      await waitFor(() => resumed.at(-1) === last);
      // The group had handled every acknowledged message; it gets again only those whose position was
      // not yet written (positions are written every 50 ms), never a gap and never the whole log.
      const from = resumed[0] as number;
      expect(from).toBeGreaterThan(0);
      expect(from).toBeLessThanOrEqual(lastAcked + 1);
      expect(resumed).toEqual(Array.from({ length: last - from + 1 }, (_, i) => from + i));
      await bus.close();
    } finally {
      await tmp.cleanup();
    }
  }, 60_000);
});
