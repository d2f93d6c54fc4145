import fc from "fast-check";
import { countDocs } from "./count-by";
import { type CountRow, type Doc, type DocumentStore, type Filter, UnsupportedQueryError } from "./port";

// The countBy part of the store contract (called from contract.ts): what a count means, and that the
// database's answer is the one counting the found documents one by one gives, for every filter shape,
// with and without indexes on the fields.

interface Counted extends Doc {
  project: string;
  source?: string | null;
  tags?: string[] | string;
  at?: Date | number;
  meta?: { label: string };
  n?: number;
  flag?: boolean;
}

const day = (d: number) => new Date(Date.UTC(2026, 0, d));

const sorted = (rows: CountRow[]) =>
  [...rows].sort((a, b) => a.bucket - b.bucket || JSON.stringify(a.key).localeCompare(JSON.stringify(b.key)));

const FILTERS: Filter[] = [
  {},
  { project: "p1" },
  { source: "x" },
  { source: { $in: ["x", "reddit"] } },
  { source: { $exists: false } },
  { source: null },
  { tags: "a" },
  { tags: { $in: ["b", "c"] } },
  { tags: { $size: 2 } },
  { at: { $gte: day(2), $lt: day(4) } },
  { project: "p1", at: { $gte: day(1) } },
  { $or: [{ source: "x" }, { tags: "c" }] },
  { $and: [{ project: "p2" }, { $or: [{ source: { $exists: false } }, { source: "reddit" }] }] },
  { "meta.label": "pos" },
  { "meta.label": { $in: ["pos", "neg"] }, flag: true },
  { n: 2 },
  { n: { $gt: 1, $lte: 3 } },
  { flag: false },
  { _id: { $in: ["c_1", "c_3", "c_5"] } },
  { source: { $ne: "x" } },
  // An array field asked for some strings beside members on the same index's fields (an embedded store may
  // count these from the index of the array's elements alone), and beside one that index does not hold.
  { project: "p1", tags: "a", at: { $gte: day(2), $lt: day(5) } },
  { $and: [{ project: "p2", at: { $lt: day(4) } }, { tags: { $in: ["a", "b"] } }] },
  { project: "p1", tags: { $in: ["b", "c"] }, source: "x" },
];

const BY = [undefined, "source", "tags", "meta.label", "n", "flag", "at"];

const docArb = fc.record(
  {
    project: fc.constantFrom("p1", "p2"),
    source: fc.constantFrom("x", "reddit", null),
    tags: fc.oneof(fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 4 }), fc.constantFrom("a", "b")),
    at: fc.oneof(fc.integer({ min: 0, max: 5 * 24 }).map((h) => new Date(day(1).getTime() + h * 3_600_000)), fc.constant(7)),
    meta: fc.constantFrom({ label: "pos" }, { label: "neg" }, { label: "mid" }),
    n: fc.integer({ min: 0, max: 4 }),
    flag: fc.boolean(),
  },
  { requiredKeys: ["project"] },
);

export const describeCountContract = (store: () => DocumentStore): void => {
  describe("countBy", () => {
    const counted = (name = "counted") => store().collection<Counted>(name);

    it("counts by a field's value: each distinct element of an array once, missing and null under null, an empty array not at all", async () => {
      await counted().insertMany([
        { _id: "c_1", project: "p1", source: "x", tags: ["a", "b", "a"] },
        { _id: "c_2", project: "p1", source: "x", tags: [] },
        { _id: "c_3", project: "p1", source: null, tags: "b" },
        { _id: "c_4", project: "p1" },
        { _id: "c_5", project: "p2", source: "x", tags: ["c"] },
      ]);
      expect(sorted(await counted().countBy({ project: "p1" }, { by: "source" }))).toEqual([
        { bucket: 0, key: "x", count: 2 },
        { bucket: 0, key: null, count: 2 },
      ]);
      expect(sorted(await counted().countBy({ project: "p1" }, { by: "tags" }))).toEqual([
        { bucket: 0, key: "a", count: 1 },
        { bucket: 0, key: "b", count: 2 },
        { bucket: 0, key: null, count: 1 },
      ]);
      expect(await counted().countBy({ project: "p1" }, {})).toEqual([{ bucket: 0, key: null, count: 4 }]);
      expect(await counted().countBy({ project: "p3" }, {})).toEqual([]);
    });

    it("counts by ranges of a Date field, leaving out documents before the first start or without a Date, the last range open", async () => {
      await counted().insertMany([
        { _id: "c_1", project: "p1", at: day(1), source: "x" },
        { _id: "c_2", project: "p1", at: day(2), source: "x" },
        { _id: "c_3", project: "p1", at: new Date(day(3).getTime() - 1), source: "reddit" },
        { _id: "c_4", project: "p1", at: day(30), source: "x" },
        { _id: "c_5", project: "p1", at: 5, source: "x" },
        { _id: "c_6", project: "p1", source: "x" },
      ]);
      const starts = [day(2), day(3)];
      expect(sorted(await counted().countBy({ project: "p1" }, { buckets: { field: "at", starts } }))).toEqual([
        { bucket: 0, key: null, count: 2 },
        { bucket: 1, key: null, count: 1 },
      ]);
      expect(sorted(await counted().countBy({ project: "p1" }, { by: "source", buckets: { field: "at", starts } }))).toEqual([
        { bucket: 0, key: "reddit", count: 1 },
        { bucket: 0, key: "x", count: 1 },
        { bucket: 1, key: "x", count: 1 },
      ]);
    });

    it("refuses a spec it cannot answer alike on every adapter", async () => {
      const refused = (spec: Parameters<ReturnType<typeof counted>["countBy"]>[1]) => expect(counted().countBy({}, spec)).rejects.toBeInstanceOf(UnsupportedQueryError);
      await refused({ by: "$source" });
      await refused({ buckets: { field: "at", starts: [] } });
      await refused({ buckets: { field: "at", starts: [day(2), day(1)] } });
      await refused({ buckets: { field: "at", starts: Array.from({ length: 1001 }, (_, i) => new Date(i)) } });
      await expect(counted().countBy({ n: undefined }, {})).rejects.toBeInstanceOf(UnsupportedQueryError);
    });

    it("counts what counting the found documents gives, for every filter shape, with and without indexes (seeded)", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(docArb, { maxLength: 25 }),
          fc.boolean(),
          fc.constantFrom(...FILTERS),
          fc.constantFrom(...BY),
          fc.boolean(),
          async (docs, indexed, filter, by, bucketed) => {
            run += 1;
            const c = counted(`counted_${run}`);
            if (indexed) {
              await c.ensureIndex({ fields: { project: 1, at: -1 } });
              await c.ensureIndex({ fields: { project: 1, tags: 1, at: -1 } });
              for (const field of ["source", "meta.label", "tags", "n", "flag"]) await c.ensureIndex({ fields: { [field]: 1 } });
            }
            await c.insertMany(docs.map((d, i) => ({ ...d, _id: `c_${i}` }) as Counted));
            const spec = { ...(by ? { by } : {}), ...(bucketed ? { buckets: { field: "at", starts: [day(2), day(3), day(5)] } } : {}) };
            const found = await c.find(filter);
            expect(sorted(await c.countBy(filter, spec))).toEqual(sorted(countDocs(found, spec)));
            expect(await c.count(filter)).toBe(found.length);
          },
        ),
        { seed: 20261126, numRuns: 60 },
      );
    }, 120_000);
  });
};
