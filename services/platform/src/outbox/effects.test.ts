import { ManualClock } from "../clock";
import { openEmbeddedStore } from "../store/embedded";
import { EFFECTS_COLLECTION, type EffectRecord, KEEP_EFFECTS_SECONDS, runOnce } from "./effects";
import { Outbox } from "./outbox";

// The embedded store expires TTL-indexed records by the real time, so a clock moved past the keep time
// sees the record still there, as MongoDB shows it until its expiry job runs.
const openOutbox = async () => {
  const store = await openEmbeddedStore();
  const clock = new ManualClock(new Date());
  const outbox = new Outbox(store, clock, "test");
  await outbox.ensureIndexes();
  return { store, clock, outbox };
};

describe("idempotency effects", () => {
  it("treats a key reused after the keep time as new, though the store still holds its record", async () => {
    const { store, clock, outbox } = await openOutbox();
    await outbox.commit([], [], { key: "k1", resourceId: "res_1" });
    clock.advance(KEEP_EFFECTS_SECONDS * 1000 - 1);
    expect(await outbox.effectOf("k1")).toMatchObject({ resourceId: "res_1" });
    clock.advance(1);
    expect(await store.collection<EffectRecord>(EFFECTS_COLLECTION).findById("k1")).toMatchObject({ resourceId: "res_1" });
    expect(await outbox.effectOf("k1")).toBeNull();

    const runs: string[] = [];
    const result = await runOnce(
      outbox,
      "k1",
      async (effect) => `replayed ${effect.resourceId}`,
      async () => {
        runs.push("run");
        await outbox.commit([], [], { key: "k1", resourceId: "res_2" });
        return "created res_2";
      },
    );
    expect(result).toBe("created res_2");
    expect(runs).toEqual(["run"]);
    expect(await outbox.effectOf("k1")).toMatchObject({ resourceId: "res_2", createdAt: clock.now() });
  });

  it("lets only one of two runs take over an expired record; the other replays it", async () => {
    const { clock, outbox } = await openOutbox();
    await outbox.commit([], [], { key: "k2", resourceId: "res_old" });
    clock.advance(KEEP_EFFECTS_SECONDS * 1000);
    const made: string[] = [];
    const once = (id: string) =>
      runOnce(
        outbox,
        "k2",
        async (effect) => effect.resourceId,
        async () => {
          await outbox.commit([], [], { key: "k2", resourceId: id });
          made.push(id);
          return id;
        },
      );
    const results = await Promise.all([once("res_a"), once("res_b")]);
    expect(made).toHaveLength(1);
    expect(results).toEqual([made[0], made[0]]);
  });
});
