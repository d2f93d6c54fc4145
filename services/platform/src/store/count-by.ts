import { readPath } from "./checks";
import { type CountKey, type CountRow, type CountSpec, UnsupportedQueryError } from "./port";

// What countBy means, shared by the adapters: the spec's checks, the key a value counts under, and the
// count done in JavaScript over documents already matched (the embedded store's answer for a filter it
// cannot say exactly in SQL, and the reference the contract suite compares the databases with).

export const MAX_COUNT_BUCKETS = 1000;

const FIELD = /^[^$.][^$]*$/;

export const assertCountSpec = (spec: CountSpec): void => {
  if (spec.by !== undefined && (!FIELD.test(spec.by) || spec.by.endsWith(".") || spec.by.includes(".."))) {
    throw new UnsupportedQueryError(`countBy by ${JSON.stringify(spec.by)}`);
  }
  if (spec.buckets === undefined) return;
  const { field, starts } = spec.buckets;
  if (!FIELD.test(field)) throw new UnsupportedQueryError(`countBy buckets on ${JSON.stringify(field)}`);
  if (starts.length === 0 || starts.length > MAX_COUNT_BUCKETS) {
    throw new UnsupportedQueryError(`countBy with ${starts.length} buckets (1 to ${MAX_COUNT_BUCKETS})`);
  }
  starts.forEach((s, i) => {
    if (!(s instanceof Date) || Number.isNaN(s.getTime())) throw new UnsupportedQueryError(`countBy bucket start ${i} is not a Date`);
    if (i > 0 && s.getTime() <= (starts[i - 1] as Date).getTime()) throw new UnsupportedQueryError("countBy bucket starts must ascend");
  });
};

/** The key a single value counts under: scalars as they are, anything else null. */
export const countKeyOf = (v: unknown): CountKey =>
  typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) ? v : null;

/** The keys a document counts under for `by`: each distinct element of an array, else the one value's key. */
export const countKeysOf = (doc: unknown, by: string | undefined): CountKey[] => {
  if (by === undefined) return [null];
  const v = readPath(doc, by);
  return Array.isArray(v) ? [...new Set(v.map(countKeyOf))] : [countKeyOf(v)];
};

/** The index of the last start at or before `t`, or -1 when `t` is before the first (starts ascending). */
export const bucketIndexOf = (starts: readonly number[], t: number): number => {
  let lo = 0;
  let hi = starts.length - 1;
  if (hi < 0 || t < (starts[0] as number)) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
};

/** Accumulates counts keyed by (bucket, key). */
export class CountTable {
  private readonly counts = new Map<string, CountRow>();

  add(bucket: number, key: CountKey, n = 1): void {
    const id = `${bucket}|${JSON.stringify(key)}`;
    const row = this.counts.get(id);
    if (row) row.count += n;
    else this.counts.set(id, { bucket, key, count: n });
  }

  rows(): CountRow[] {
    return [...this.counts.values()];
  }
}

/** countBy over documents that match the filter already. */
export const countDocs = (docs: Iterable<unknown>, spec: CountSpec): CountRow[] => {
  const table = new CountTable();
  const starts = spec.buckets?.starts.map((d) => d.getTime());
  for (const doc of docs) {
    let bucket = 0;
    if (spec.buckets && starts) {
      const t = readPath(doc, spec.buckets.field);
      if (!(t instanceof Date)) continue;
      bucket = bucketIndexOf(starts, t.getTime());
      if (bucket < 0) continue;
    }
    for (const key of countKeysOf(doc, spec.by)) table.add(bucket, key);
  }
  return table.rows();
};
