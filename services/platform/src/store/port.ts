// The document store port: a small Mongo-syntax surface that both adapters (MongoDB and the embedded
// nedb store) honour identically. Repositories use only what is declared here; the contract suite
// (contract.ts) pins the behaviour down for every adapter.

/**
 * Every stored document has a string `_id` (our prefixed ids) and a version `_v` used for optimistic concurrency.
 * A field whose value is `undefined` is absent: documents are stored without it (at any depth; `undefined`
 * inside an array is refused), and `$set: { f: undefined }` removes `f` like `$unset`.
 */
export interface Doc {
  _id: string;
  _v?: number;
}

/**
 * Filters in Mongo syntax. `undefined` anywhere in a filter is refused (UnsupportedQueryError): MongoDB reads it
 * as null ("missing or null") and nedb as matching nothing; say `{ $exists: false }` or `null`. Supported: equality on (dotted) fields, `$in $nin $ne $gt $gte $lt $lte $exists
 * $regex (a RegExp) $elemMatch $size`, and `$and $or`. Not supported (nedb lacks them or reads them
 * differently): `$eq $all $type $expr $nor $mod $not $options`.
 */
export type Filter = Record<string, unknown>;

/** Updates in Mongo syntax. Supported: `$set $unset $inc $push $pull $addToSet`. A document without operators is refused. */
export interface Update {
  $set?: Record<string, unknown>;
  $unset?: Record<string, unknown>;
  $inc?: Record<string, number>;
  $push?: Record<string, unknown>;
  $pull?: Record<string, unknown>;
  $addToSet?: Record<string, unknown>;
}

export type SortSpec = Record<string, 1 | -1>;

export interface IndexSpec {
  /** Fields in order; a compound index when more than one. */
  fields: Record<string, 1 | -1>;
  unique?: boolean;
  /** Documents without the field are left out of the index (and of its uniqueness). */
  sparse?: boolean;
  /** TTL: the document is removed this many seconds after the Date in its (single) indexed field. */
  expireAfterSeconds?: number;
  /**
   * The one field of `fields` that holds words (an array of strings, each a run of letters, digits and marks,
   * lower-cased), queried by equality on a word. The meaning of every query is unchanged; it tells the store
   * how to keep the index: MongoDB keeps it as any other (multikey) index, the embedded store as a full-text
   * index of the words, far cheaper to write than one index row per word. Not with `unique` or an expiry.
   */
  text?: string;
}

export interface FindOptions {
  sort?: SortSpec;
  limit?: number;
  skip?: number;
}

export interface PageOptions {
  /** 1..1000 documents per page. */
  limit: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor?: string | null;
  /** The field to order by (ties broken by `_id`); default `_id`. */
  sortField?: string;
  /** 1 ascending (default), -1 descending. */
  direction?: 1 | -1;
}

export interface Page<T> {
  items: T[];
  /** Null when there is nothing after this page. */
  nextCursor: string | null;
}

/** A value documents are counted under by `countBy`: a field's scalar value, or null. */
export type CountKey = string | number | boolean | null;

/** How `countBy` splits the documents a filter matches. Without `by` and `buckets`, one row counts them all. */
export interface CountSpec {
  /**
   * Count by this field's value: a string, number or boolean is a key as it is; a field holding an array
   * counts the document once under each distinct element (and not at all when the array is empty); a
   * missing or null field, an object or a Date, counts under null. The field is top-level or dotted through
   * objects (not through arrays).
   */
  by?: string;
  /**
   * Count by ranges of a Date field: bucket `i` holds the documents at or after `starts[i]` and before
   * `starts[i + 1]` (the last bucket is open-ended). Documents before the first start, or whose field is not
   * a Date, are not counted. `starts` ascending, at most 1,000.
   */
  buckets?: { field: string; starts: Date[] };
}

/** One count of `countBy`: `bucket` is 0 without buckets, `key` null without `by`. Rows with no documents are left out. */
export interface CountRow {
  bucket: number;
  key: CountKey;
  count: number;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  /** Set when an upsert inserted a document. */
  upsertedId?: string;
}

export interface UpsertOptions {
  /** Insert when nothing matches; the filter must then name `_id` by equality. */
  upsert?: boolean;
}

export interface Collection<T extends Doc> {
  readonly name: string;
  /**
   * Creates the index, or does nothing when it exists with the same options. An existing index on the same
   * fields with other `unique` or `sparse` options, or with an expiry added or removed, is left as it is and
   * IndexConflictError is thrown (such a change needs the index dropped first, a migration); only
   * `expireAfterSeconds` of an expiring index may change, and changes in place.
   */
  ensureIndex(spec: IndexSpec): Promise<void>;
  /** Inserts and returns the stored document (with `_v: 1` when it had none). Unique clash: UniqueViolationError. */
  insertOne(doc: T): Promise<T>;
  /** All or nothing: on a unique clash (with a stored document or within the batch) none of the documents is written. */
  insertMany(docs: T[]): Promise<T[]>;
  findOne(filter: Filter): Promise<T | null>;
  findById(id: string): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** Cursor paging over a stable order (sort field, then `_id`). */
  findPage(filter: Filter, options: PageOptions): Promise<Page<T>>;
  count(filter: Filter): Promise<number>;
  /**
   * Counts the documents `filter` matches, split by a field's values and/or ranges of a Date field (see
   * CountSpec), computed by the database: no document is read into the process. Order of rows: unspecified.
   */
  countBy(filter: Filter, spec: CountSpec): Promise<CountRow[]>;
  /** Every update through the port also increments `_v` (an upserted document starts at 1). */
  updateOne(filter: Filter, update: Update, options?: UpsertOptions): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  /** Updates one document and returns it as it is after the update (null when none matched and no upsert). */
  findOneAndUpdate(filter: Filter, update: Update, options?: UpsertOptions): Promise<T | null>;
  /**
   * Optimistic concurrency: applies `update` only if the stored `_v` equals `expectedVersion`, and bumps
   * `_v`. Throws VersionConflictError when another writer got there first, and a not_found DomainError when the document does not exist.
   */
  updateVersioned(id: string, expectedVersion: number, update: Update): Promise<T>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
}

/**
 * A write of a unit of work. All writes of one `commit` take effect together or not at all; this is what
 * lets a state change and its outbox event be stored together.
 */
export type Write =
  | { kind: "insert"; collection: string; doc: Doc }
  /** Replaces the document with this `_id`; with `expectedVersion`, only if the stored `_v` matches. The new `_v` is expected + 1. */
  | { kind: "replace"; collection: string; doc: Doc; expectedVersion?: number }
  | { kind: "delete"; collection: string; id: string };

export interface DocumentStore {
  /** Adapter name, for logs and health: "embedded" or "mongodb". */
  readonly kind: string;
  collection<T extends Doc>(name: string): Collection<T>;
  /** Applies the writes atomically (a transaction on MongoDB, a redo journal on the embedded store). */
  commit(writes: Write[]): Promise<void>;
  close(): Promise<void>;
}

export class UniqueViolationError extends Error {
  constructor(
    readonly collection: string,
    readonly detail: string,
  ) {
    super(`Unique constraint violated in ${collection}: ${detail}`);
    this.name = "UniqueViolationError";
  }
}

export class VersionConflictError extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
  ) {
    super(`Document ${id} in ${collection} changed since it was read`);
    this.name = "VersionConflictError";
  }
}

export class UnsupportedQueryError extends Error {
  constructor(detail: string) {
    super(`Unsupported by the document store port: ${detail}`);
    this.name = "UnsupportedQueryError";
  }
}

export interface IndexOptions {
  unique: boolean;
  sparse: boolean;
  expireAfterSeconds?: number;
}

export class IndexConflictError extends Error {
  constructor(
    readonly collection: string,
    readonly fields: string[],
    readonly existing: IndexOptions | null,
    readonly requested: IndexOptions,
  ) {
    super(
      `An index on ${collection} (${fields.join(", ")}) already exists with other options` +
        (existing ? ` (${JSON.stringify(existing)}, asked for ${JSON.stringify(requested)})` : ` (asked for ${JSON.stringify(requested)})`) +
        "; changing unique or sparse, or adding or removing an expiry, needs the index dropped first.",
    );
    this.name = "IndexConflictError";
  }
}

/** MongoDB runs multi-document transactions only on a replica set or a sharded cluster. */
export class ReplicaSetRequiredError extends Error {
  constructor(detail: string) {
    super(
      `MongoDB must be a replica set (a single-node one is enough: start mongod with --replSet and run rs.initiate()) ` +
        `or a sharded cluster, because the store commits units of work in transactions; ${detail}`,
    );
    this.name = "ReplicaSetRequiredError";
  }
}

export const isUniqueViolation = (err: unknown): err is UniqueViolationError => err instanceof UniqueViolationError;
export const isVersionConflict = (err: unknown): err is VersionConflictError => err instanceof VersionConflictError;
