import * as model from "@seald-io/nedb/lib/model.js";
import { assertFilter, assertUpsertFilter, normalizeUpdate, withoutUndefined } from "./checks";
import { type Doc, type Filter, UniqueViolationError, type Update, VersionConflictError, type Write } from "./port";
import { serializeDocument } from "./sqlite-documents";
import type { SqliteReads } from "./sqlite-reads";
import type { SqliteSchema, Stored, Table } from "./sqlite-schema";

// The write path of the embedded store. A document is stored as nedb's serialization (JSON, a Date as
// `{"$$date": <ms>}`), after the store has learnt from it what its indexed fields hold (SqliteSchema.observe).
// An update or a delete finds its documents with the store's own read (so a filter means what it means to
// a find) and rewrites them in the same transaction, bumping the version `_v`; a commit checks each write's
// precondition before it applies any. These calls are synchronous; the store (embedded.ts) resolves a
// write once it is on disk.

/** Whether SQLite refused a write for a unique index (or the id's). */
export const isUniqueError = (err: unknown): boolean => {
  const code = (err as { code?: string }).code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
};

const withVersionBump = (update: Update): Record<string, unknown> => ({ ...update, $inc: { ...(update.$inc ?? {}), _v: 1 } });

const nextVersion = (w: Write, before: Doc | null): number => {
  if (w.kind === "insert") return w.doc._v ?? 1;
  if (w.kind === "replace" && w.expectedVersion !== undefined) return w.expectedVersion + 1;
  return (before?._v ?? 0) + 1;
};

export class SqliteWrites {
  constructor(
    private readonly schema: SqliteSchema,
    private readonly reads: SqliteReads,
  ) {}

  private serialize(table: Table, doc: Stored): string {
    this.schema.observe(table, doc);
    return serializeDocument(doc, model.serialize);
  }

  insert(table: Table, doc: Stored): void {
    this.schema.prepare(`INSERT INTO ${table.sql} (id, doc) VALUES (?, ?)`).run(doc._id, this.serialize(table, doc));
  }

  private put(table: Table, doc: Stored): void {
    this.schema.prepare(`INSERT INTO ${table.sql} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`).run(
      doc._id,
      this.serialize(table, doc),
    );
  }

  private remove(table: Table, id: string): number {
    return this.schema.prepare(`DELETE FROM ${table.sql} WHERE id = ?`).run(id).changes;
  }

  update(table: Table, filter: Filter, update: Update, multi: boolean, upsert: boolean): { matched: Stored[]; upserted?: Stored } {
    assertFilter(filter);
    const bumped = withVersionBump(normalizeUpdate(update));
    if (upsert) assertUpsertFilter(filter);
    return this.schema.transaction(() => {
      const found = this.reads.find(table, filter, multi ? {} : { limit: 1 });
      if (found.length === 0 && upsert) {
        const doc = model.modify(model.deepCopy(filter, true), bumped) as Stored;
        this.insert(table, doc);
        return { matched: [], upserted: doc };
      }
      const matched = found.map((doc) => {
        const next = model.modify(doc, bumped) as Stored;
        this.put(table, next);
        return next;
      });
      return { matched };
    });
  }

  delete(table: Table, filter: Filter, multi: boolean): number {
    assertFilter(filter);
    return this.schema.transaction(() => this.reads.find(table, filter, multi ? {} : { limit: 1 }).reduce((n, d) => n + this.remove(table, d._id), 0));
  }

  /** Applies a unit of work in one transaction, or throws and applies none of it. */
  commit(writes: Write[]): void {
    this.schema.transaction(() => {
      // Every write's own precondition (a new _id, the expected version) is checked before any is applied,
      // so a clash on an _id (e.g. a racing run's effect record) is what a losing commit reports, rather
      // than a unique index clash of an earlier write of the same unit.
      const checked = writes.map((w) => {
        const table = this.schema.table(w.collection);
        const id = w.kind === "delete" ? w.id : w.doc._id;
        const before = this.reads.byId(table, id);
        if (w.kind === "insert" && before) throw new UniqueViolationError(w.collection, `duplicate key ${JSON.stringify(id)}`);
        if (w.kind === "replace" && w.expectedVersion !== undefined && (before?._v ?? -1) !== w.expectedVersion) {
          throw new VersionConflictError(w.collection, id);
        }
        return { w, table, id, before };
      });
      for (const { w, table, id, before } of checked) {
        if (w.kind === "delete") {
          this.remove(table, id);
          continue;
        }
        const doc = { ...withoutUndefined(w.doc), _v: nextVersion(w, before) } as Stored;
        try {
          // A document written earlier in this unit is there now, whatever `before` said.
          this.put(table, doc);
        } catch (err) {
          throw isUniqueError(err) ? new UniqueViolationError(w.collection, (err as Error).message) : err;
        }
      }
    });
  }
}
