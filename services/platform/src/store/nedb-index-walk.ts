import * as nedbModel from "@seald-io/nedb/lib/model.js";
import { afterCursorFilter, decodeCursor, encodeCursor, pageSort, readPath } from "./checks";
import type { Filter, Page, PageOptions } from "./port";

// nedb answers a sorted, limited find by collecting every document the filter matches and sorting them
// all, so a page of 20 out of a project's 100,000 documents costs a sort of 100,000. For the common shape
// of a paged list (an equality on one field, ordered by another, with a compound index on both) this
// walks the index tree in order from the cursor instead, testing each document with nedb's own matcher
// and stopping once the page is full: the cost follows the page (and how selective the rest of the
// filter is), not the collection. Results are exactly findPageWith's: the same matcher decides, the
// tree is ordered by the same comparison the sort uses, and ties are taken in `_id` order.

type Stored = Record<string, unknown> & { _id: string };

interface TreeNode {
  key?: unknown;
  data: Stored[];
  left: TreeNode | null;
  right: TreeNode | null;
}

interface NedbIndex {
  /** The indexed fields, sorted: the order in which nedb compares a compound key's members. */
  _fields: string[];
  sparse: boolean;
  tree: { tree: TreeNode };
}

/** The parts of nedb's Datastore this relies on, which its typings leave out. */
export interface NedbInternals {
  indexes: Record<string, NedbIndex | undefined>;
  ttlIndexes: Record<string, number>;
  executor: { pushAsync<T>(task: () => Promise<T>): Promise<T> };
}

const compare = (a: unknown, b: unknown): number => nedbModel.compareThings(a, b);

const isPlainValue = (v: unknown): boolean =>
  v === undefined || v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v instanceof Date;

const hasKey = (node: TreeNode | null): node is TreeNode => node !== null && Object.prototype.hasOwnProperty.call(node, "key");

/**
 * Whether no document holds an array or object in the index's first field. Those sort above every plain
 * value, so looking at the largest key is enough; with one there, an equality could match a document
 * (an array containing the value) that sits outside the range walked, so the walk is not used.
 */
const firstFieldIsPlain = (index: NedbIndex, field: string): boolean => {
  let node: TreeNode | null = index.tree.tree;
  if (!hasKey(node)) return true;
  while (hasKey(node.right)) node = node.right;
  return isPlainValue((node.key as Record<string, unknown>)[field]);
};

/**
 * The index to walk for `filter` ordered by `sortField`: two fields, the first an equality of the
 * filter on a plain value, the second the sort field. nedb orders a compound key by its fields sorted by
 * name, so the equality must sort before the sort field. Not sparse (a sparse index leaves documents
 * out); no expiring index on the collection (expired documents must go through nedb's own reads).
 */
const walkableIndex = (ds: NedbInternals, filter: Filter, sortField: string): { index: NedbIndex; field: string; value: unknown } | null => {
  if (Object.keys(ds.ttlIndexes).length > 0) return null;
  for (const index of Object.values(ds.indexes)) {
    if (!index || index.sparse || index._fields.length !== 2 || index._fields[1] !== sortField) continue;
    const field = index._fields[0] as string;
    const value = filter[field];
    if (value === undefined || value === null || !isPlainValue(value)) continue;
    if (!firstFieldIsPlain(index, field)) continue;
    return { index, field, value };
  }
  return null;
};

/**
 * The tree's nodes inside the range, in page order. The range is the keys whose first field equals
 * the filter's value and whose sort value lies within the bounds (the filter's own, the cursor's); it is
 * contiguous in the tree, so a subtree wholly on one side of it is never entered.
 */
function* nodesInRange(node: TreeNode | null, where: (key: Record<string, unknown>) => number, descending: boolean): Generator<TreeNode> {
  if (!hasKey(node)) return;
  const position = where(node.key as Record<string, unknown>);
  const [before, after] = descending ? [node.right, node.left] : [node.left, node.right];
  // Keys before this node in page order lie in `before`; they can be in range unless this node is
  // already before the range.
  const beforeRange = descending ? position > 0 : position < 0;
  const afterRange = descending ? position < 0 : position > 0;
  if (!beforeRange) yield* nodesInRange(before, where, descending);
  if (position === 0) yield node;
  if (!afterRange) yield* nodesInRange(after, where, descending);
}

const minOf = (values: unknown[]) => values.reduce((a, b) => (a === undefined || compare(b, a) < 0 ? b : a), undefined);
const maxOf = (values: unknown[]) => values.reduce((a, b) => (a === undefined || compare(b, a) > 0 ? b : a), undefined);

/**
 * Where the walk may start and must stop on the sort field: the filter's own comparisons on it (a date
 * range) and the cursor. Only plain values bound the walk; anything else is left to the matcher. (A sort
 * field holding arrays orders differently on every adapter, so lists never sort by one.)
 */
const sortBounds = (condition: unknown, cursorValue: unknown, descending: boolean): { lower: unknown; upper: unknown } => {
  const uppers: unknown[] = [];
  const lowers: unknown[] = [];
  if (condition !== null && typeof condition === "object" && !(condition instanceof Date) && !Array.isArray(condition)) {
    const ops = condition as Record<string, unknown>;
    const isBound = (v: unknown) => v !== undefined && v !== null && isPlainValue(v);
    for (const op of ["$lt", "$lte"]) if (isBound(ops[op])) uppers.push(ops[op]);
    for (const op of ["$gt", "$gte"]) if (isBound(ops[op])) lowers.push(ops[op]);
  }
  if (cursorValue !== undefined) (descending ? uppers : lowers).push(cursorValue);
  return { lower: maxOf(lowers), upper: minOf(uppers) };
};

/** A page read by walking an index, or null when no index fits the query's shape. */
export const walkIndexPage = <T>(ds: NedbInternals, filter: Filter, options: PageOptions): Promise<Page<T>> | null => {
  const { field: sortField, direction } = pageSort(options);
  if (sortField === "_id") return null;
  const found = walkableIndex(ds, filter, sortField);
  if (!found) return null;
  const { index, field, value } = found;
  const descending = direction === -1;
  const { lower, upper } = sortBounds(filter[sortField], options.cursor ? decodeCursor(options.cursor).value : undefined, descending);
  const query = options.cursor ? { $and: [filter, afterCursorFilter(options.cursor, sortField, direction)] } : filter;
  // -1 before the range in key order, 0 inside, 1 after. The bounds are inclusive: the matcher then
  // applies the strict ones and the cursor's tie on `_id`.
  const where = (key: Record<string, unknown>): number => {
    const byField = compare(key[field], value);
    if (byField !== 0) return byField;
    const sortValue = key[sortField];
    if (upper !== undefined && compare(sortValue, upper) > 0) return 1;
    if (lower !== undefined && compare(sortValue, lower) < 0) return -1;
    return 0;
  };
  // Queued like nedb's own reads, so writes queued before it are seen and none runs in the middle.
  return ds.executor.pushAsync(async () => {
    const rows: Stored[] = [];
    walk: for (const node of nodesInRange(index.tree.tree, where, descending)) {
      const ties = node.data.length > 1 ? [...node.data].sort((a, b) => (a._id < b._id ? -direction : a._id > b._id ? direction : 0)) : node.data;
      for (const doc of ties) {
        if (!nedbModel.match(doc, query)) continue;
        rows.push(doc);
        if (rows.length > options.limit) break walk;
      }
    }
    const items = rows.slice(0, options.limit).map((d) => nedbModel.deepCopy(d) as unknown as T);
    const last = rows[options.limit - 1];
    return { items, nextCursor: rows.length > options.limit && last ? encodeCursor(readPath(last, sortField), last._id) : null };
  });
};
