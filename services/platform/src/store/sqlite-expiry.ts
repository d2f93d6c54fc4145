import { keyExpr, NULL_KEY } from "./sqlite-keys";
import { jsonPathOf, type SqliteSchema, type Table } from "./sqlite-schema";

// TTL indexes on the embedded store: SQLite has no expiry of its own, so the documents whose time has
// passed are deleted before every read of their collection (sqlite-reads.ts), which therefore never sees
// one, and by a sweep of every open collection once a minute (started by the store, embedded.ts), so that
// a collection nobody reads does not keep them.

export const TTL_SWEEP_MS = 60 * 1000;

/** Deletes the documents whose TTL has passed; run before every read of the collection and once a minute. */
export const expire = (schema: SqliteSchema, table: Table): void => {
  for (const [field, seconds] of table.ttl) {
    const expr = keyExpr(field);
    // Only Dates expire (as on MongoDB); their key is a number, and json_type tells them from numbers.
    schema.prepare(`DELETE FROM ${table.sql} WHERE ${expr} > ? AND ${expr} < ? AND json_type(doc, ?) = 'object'`).run(
      NULL_KEY,
      Date.now() - seconds * 1000,
      jsonPathOf(field),
    );
  }
};

/** The minute's sweep: every collection opened so far; nothing once the store is closed. */
export const expireAll = (schema: SqliteSchema): void => {
  if (schema.closed) return;
  for (const table of schema.opened()) expire(schema, table);
};
