import { join } from "node:path";
import { createInProcessBus } from "../bus/in-process";
import { at } from "../bus/log";
import { openSqliteBusLog } from "../bus/sqlite-log";
import { makeTempDir } from "../testing/tmp";
import { backupDataDir, restoreDataDir } from "./backup";

// The in-process bus's log is part of a backup: taken while the bus runs, restored, it holds the messages
// and each group's position, so the restored instance resumes its consumers instead of replaying all.

describe("backup of the in-process bus's log", () => {
  it("restores the messages and the groups' positions of a running bus", async () => {
    const live = await makeTempDir();
    const target = await makeTempDir();
    try {
      const liveLog = await openSqliteBusLog({ dir: join(live.dir, "bus"), sync: "normal", retainMs: 3600_000 });
      const bus = createInProcessBus({ log: liveLog, partitions: 1 });
      await bus.subscribe({ groupId: "g", topics: ["t"] }, async () => undefined);
      await bus.publish(["1", "2", "3"].map((value) => ({ topic: "t", key: "k", value })));
      liveLog.flush(); // as the bus does on its own within 50 ms
      await backupDataDir(live.dir, join(target.dir, "b.tar.gz"));
      await bus.close();

      await restoreDataDir(join(target.dir, "b.tar.gz"), join(target.dir, "data"));
      const log = await openSqliteBusLog({ dir: join(target.dir, "data", "bus"), retainMs: 3600_000 });
      expect(log.read("t", 0, 0, 10).map((m) => m.value)).toEqual(["1", "2", "3"]);
      expect(log.positions("g").get(at("t", 0))).toBe(3);
      await log.close();
    } finally {
      await live.cleanup();
      await target.cleanup();
    }
  });
});
