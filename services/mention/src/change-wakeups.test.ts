import { createInProcessBus, silentLogger } from "@earshot/platform";
import { GROUPS, MENTION_CONSUMERS } from "./consumers";
import { listMentionChanges } from "./domain/changes";
import { ingestPosts } from "./domain/ingest";
import { openMentionWorld } from "./test-support";

// Two processes over one store: a read waiting for changes in one is answered when the other commits one,
// through the bus. The other's outbox events are relayed onto the in-process bus as its relay would, and
// the waiting process hears them through its `watch` consumer (a group of its own, from the latest event).

describe("a change committed by another process", () => {
  it("wakes a read waiting in this one through the bus", async () => {
    const world = await openMentionWorld();
    const bus = createInProcessBus();
    try {
      const projectId = await world.newProject();
      await world.addKeyword(projectId, "zephyr");
      const here = world.replica();
      const there = world.replica();
      const watcher = MENTION_CONSUMERS.find((c) => c.group === GROUPS.changes)!;
      const subscription = await watcher.subscribe({ bus, store: world.store, clock: world.clock, logger: silentLogger() }, here);
      const viewer = world.caller({ [projectId]: "viewer" });
      const { nextCursor } = await listMentionChanges(here, viewer, { projectId, cursor: "latest" });
      const waiting = listMentionChanges(here, viewer, { projectId, cursor: nextCursor, waitSeconds: 30 });
      for (let turns = 0; here.changes.waiting !== 1; turns++) {
        if (turns > 10_000) throw new Error("the read never waited");
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const relayedBefore = (await world.events()).length;
      await ingestPosts(there, [world.post(projectId, { text: "zephyr lands" })]);
      // The other process's commit does not reach this one's signals by itself: only its event does.
      expect(here.changes.waiting).toBe(1);
      const events = (await world.events()).slice(relayedBefore);
      await bus.publish(events.map(({ topic, key, ...event }) => ({ topic, key, value: JSON.stringify(event) })));
      const answer = await waiting;
      expect(answer.changes.map((c) => c.change)).toEqual(["created"]);
      await subscription.stop();
    } finally {
      await bus.close();
      await world.close();
    }
  });
});
