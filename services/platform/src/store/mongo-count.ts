import type { CountRow, CountSpec, Filter } from "./port";

// countBy on MongoDB: one aggregation pipeline, so the server counts and only the rows come back. The
// `$match` goes first, where the same indexes as a find serve it.

const SCALAR_TYPES = ["string", "double", "int", "long", "decimal", "bool"];

/** A value as a key: scalars as they are, anything else (objects, Dates, null, missing) null. */
const scalarOrNull = (expr: unknown) => ({ $cond: [{ $in: [{ $type: expr }, SCALAR_TYPES] }, expr, null] });

/** The pipeline of countBy(filter, spec); its documents are `{ _id: { b, k }, n }`. */
export const countByPipeline = (filter: Filter, spec: CountSpec): object[] => {
  const project: Record<string, unknown> = { _id: 0, b: { $literal: 0 }, k: { $literal: [null] } };
  if (spec.buckets) {
    const starts = spec.buckets.starts;
    // The number of starts at or before the time, less one: the bucket's index (-1 before the first).
    project.b = {
      $let: {
        vars: { t: `$${spec.buckets.field}` },
        in: {
          $cond: [
            { $eq: [{ $type: "$$t" }, "date"] },
            { $subtract: [{ $size: { $filter: { input: { $literal: starts }, as: "s", cond: { $lte: ["$$s", "$$t"] } } } }, 1] },
            -1,
          ],
        },
      },
    };
  }
  if (spec.by !== undefined) {
    // An array counts once under each distinct element ($setUnion drops repeats), anything else once.
    project.k = {
      $let: {
        vars: { v: `$${spec.by}` },
        in: { $cond: [{ $isArray: "$$v" }, { $setUnion: [{ $map: { input: "$$v", as: "e", in: scalarOrNull("$$e") } }, []] }, [scalarOrNull("$$v")]] },
      },
    };
  }
  return [
    { $match: filter },
    { $project: project },
    { $match: { b: { $gte: 0 } } },
    { $unwind: "$k" },
    { $group: { _id: { b: "$b", k: "$k" }, n: { $sum: 1 } } },
  ];
};

export const countRowOf = (doc: { _id: { b: number; k: unknown }; n: number }): CountRow => ({
  bucket: doc._id.b,
  key: (doc._id.k ?? null) as CountRow["key"],
  count: doc.n,
});
