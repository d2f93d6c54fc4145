// nedb's document model (matching, ordering, copying, updating, serialization), which its package typings
// leave out. The embedded adapter evaluates the port's query and update language with it, so filters and
// updates mean exactly what they meant on the in-memory store before it.
declare module "@seald-io/nedb/lib/model.js" {
  export function match(doc: unknown, query: unknown): boolean;
  export function compareThings(a: unknown, b: unknown, compareStrings?: (a: string, b: string) => number): number;
  export function deepCopy<T>(obj: T, strictKeys?: boolean): T;
  export function modify<T>(doc: T, update: unknown): T;
  export function serialize(doc: unknown): string;
  export function deserialize(raw: string): unknown;
  export function getDotValue(doc: unknown, field: string): unknown;
}

// nedb's index (a tree of keys, refusing a duplicate when unique), which its package typings leave out too.
// The reader of a nedb data directory (nedb-datafile.ts) keeps a collection's unique indexes with it, so
// that a journaled write is refused exactly when the nedb store refused it.
declare module "@seald-io/nedb/lib/indexes.js" {
  class Index {
    constructor(options: { fieldName: string; unique?: boolean; sparse?: boolean });
    readonly unique: boolean;
    insert(doc: unknown): void;
    remove(doc: unknown): void;
    update(oldDoc: unknown, newDoc: unknown): void;
    revertUpdate(oldDoc: unknown, newDoc: unknown): void;
  }
  export = Index;
}
