import type { IndexOptions } from "./port";
import { ReplicaSetRequiredError } from "./port";

// What the MongoDB adapter decides from the server's answers, kept apart from the driver calls so it can be
// checked without a server.

/** The parts of a `hello` reply that tell whether the server runs transactions. */
export interface HelloReply {
  setName?: unknown;
  msg?: unknown;
  isWritablePrimary?: unknown;
}

/**
 * Refuses a server that cannot run the transactions `commit` and `insertMany` use: only replica-set members
 * (they answer with `setName`) and mongos routers (`msg: "isdbgrid"`) can. Checked once at open, so a
 * standalone server fails the start with a clear message instead of the first write with a raw driver error.
 */
export const assertTransactionsSupported = (hello: HelloReply): void => {
  if (typeof hello.setName === "string" && hello.setName.length > 0) return;
  if (hello.msg === "isdbgrid") return;
  throw new ReplicaSetRequiredError("the server is a standalone mongod.");
};

const codeOf = (err: unknown): unknown => (typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined);
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A standalone server's answer to a transaction: IllegalOperation (20) "Transaction numbers are only allowed on a replica set member or mongos". */
export const isTransactionsUnsupported = (err: unknown): boolean =>
  codeOf(err) === 20 && /Transaction numbers are only allowed/i.test(messageOf(err));

/** IndexOptionsConflict (85) and IndexKeySpecsConflict (86): an index of that name or key exists with other options. */
export const isIndexConflict = (err: unknown): boolean => codeOf(err) === 85 || codeOf(err) === 86;

/** NamespaceNotFound (26): listing the indexes of a collection that does not exist yet. */
export const isNamespaceNotFound = (err: unknown): boolean => codeOf(err) === 26;

/** An entry of `listIndexes`, as far as the port cares. */
export interface IndexDescription {
  name?: string;
  key: Record<string, unknown>;
  unique?: boolean;
  sparse?: boolean;
  expireAfterSeconds?: number;
}

/** The existing index with exactly this key pattern (fields, their order and directions), if any. */
export const findIndexWithKey = (indexes: IndexDescription[], fields: Record<string, 1 | -1>): IndexDescription | undefined => {
  const wanted = Object.entries(fields);
  return indexes.find((index) => {
    const key = Object.entries(index.key);
    return key.length === wanted.length && key.every(([f, d], i) => wanted[i]?.[0] === f && Number(d) === wanted[i]?.[1]);
  });
};

export const indexOptionsOfDescription = (index: IndexDescription): IndexOptions => ({
  // The _id index is unique without saying so.
  unique: index.name === "_id_" || index.unique === true,
  sparse: index.sparse === true,
  ...(typeof index.expireAfterSeconds === "number" ? { expireAfterSeconds: index.expireAfterSeconds } : {}),
});
