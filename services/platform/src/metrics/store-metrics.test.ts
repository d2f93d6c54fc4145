import { Registry } from "prom-client";
import { openEmbeddedStore } from "../store/embedded";
import { createStoreMetrics, measuredStore } from "./store-metrics";

// The store's document writes as the metrics port shows them: what the pipeline benchmark reads to say
// how many writes a webhook delivery costs.

const writesOf = async (registry: Registry): Promise<Record<string, number>> => {
  const metric = await registry.getSingleMetricAsString("earshot_store_document_writes_total");
  const out: Record<string, number> = {};
  for (const m of metric.matchAll(/\{store="(\w+)",collection="(\w+)"\} (\d+)/g)) out[`${m[1]}.${m[2]}`] = Number(m[3]);
  return out;
};

describe("counting a store's document writes", () => {
  it("counts each document a commit or a single write changes, by store and collection, and no read", async () => {
    const registry = new Registry();
    const inner = await openEmbeddedStore();
    const store = measuredStore(inner, "webhook", createStoreMetrics(registry));
    try {
      const things = store.collection<{ _id: string; n: number }>("things");
      await things.insertMany([{ _id: "a", n: 1 }, { _id: "b", n: 2 }, { _id: "c", n: 3 }]);
      await store.commit([
        { kind: "insert", collection: "others", doc: { _id: "x" } },
        { kind: "delete", collection: "things", id: "c" },
      ]);
      await things.updateMany({ n: { $gte: 1 } }, { $set: { seen: true } });
      // Matched nothing: nothing written.
      await things.updateOne({ _id: "missing" }, { $set: { n: 9 } });
      await things.find({});
      await things.count({});
      expect(await writesOf(registry)).toEqual({ "webhook.things": 3 + 1 + 2, "webhook.others": 1 });
    } finally {
      await store.close();
    }
  });
});
