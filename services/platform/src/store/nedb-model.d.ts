// nedb's document model (matching, ordering, copying), which its package typings leave out. The
// embedded adapter uses it to read an index in order with exactly nedb's own semantics.
declare module "@seald-io/nedb/lib/model.js" {
  export function match(doc: unknown, query: unknown): boolean;
  export function compareThings(a: unknown, b: unknown, compareStrings?: (a: string, b: string) => number): number;
  export function deepCopy<T>(obj: T, strictKeys?: boolean): T;
}
