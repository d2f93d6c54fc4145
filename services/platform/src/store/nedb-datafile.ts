import { readFile } from "node:fs/promises";
import { join } from "node:path";
import Index from "@seald-io/nedb/lib/indexes.js";
import * as model from "@seald-io/nedb/lib/model.js";
import type { Doc } from "./port";

// A data directory of the nedb store (the embedded store before SQLite), read without nedb's Datastore for
// its one conversion (nedb-conversion.ts). The format, as @seald-io/nedb 4 writes it (lib/persistence.js,
// lib/model.js):
// - `<collection>.db`: one line per write, `model.serialize` of the document (JSON; a Date is
//   `{"$$date": <ms>}`, which `model.deserialize` turns back into a Date). Writes append, so a later line
//   of an `_id` replaces the earlier ones and `{"_id": …, "$$deleted": true}` removes the document.
//   `{"$$indexCreated": {"fieldName": …, "unique": …, "sparse": …}}` declares an index (a compound one's
//   fields sorted and joined by commas) and `{"$$indexRemoved": fieldName}` drops it. Compaction rewrites
//   the file as `<collection>.db~` and renames it over the old one; nedb reads the `~` file when the `.db`
//   file is missing, and so does this.
// - `_journal.db`, the nedb store's redo journal (nedb had no transactions): an entry still there belongs
//   to a commit that was decided but maybe not applied. Its after-images are applied again, or, when one is
//   refused (a unique index), its before-images in reverse order, as the nedb store did at every start.
//   Only a unique index can refuse a write, so those are kept (nedb's own index code, lib/indexes.js).
//
// As the nedb store loaded a file: a last line cut off by a crash (no newline: that write never completed)
// is dropped, and any other line that does not parse refuses the whole directory (the store opened its
// files with corruptAlertThreshold 0), as does a file that breaks one of its own unique indexes. One
// difference: lines end at "\n" (or "\r\n") only. nedb's reader also ends a line at U+2028, U+2029 and
// U+0085, which JSON leaves unescaped inside strings, so it refused (as corrupt) a file holding a text
// with one of them.

type Stored = Doc & Record<string, unknown>;

interface Image {
  collection: string;
  id: string;
  doc: Stored | null;
}

interface JournalEntry {
  _id: string;
  afters: Image[];
  befores: Image[];
}

const JOURNAL = "_journal";
const COLLECTION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** A collection as nedb held it once loaded: its documents by id, and its unique indexes. */
class NedbCollection {
  private constructor(
    private readonly docs: Map<string, Stored>,
    private readonly unique: Index[],
  ) {}

  /** Reads a datafile as nedb's load did (Persistence.treatRawStreamAsync, then the indexes filled). */
  static parse(text: string, file: string): NedbCollection {
    const docs = new Map<string, Stored>();
    const indexes = new Map<string, { fieldName: string; unique?: boolean; sparse?: boolean }>();
    let lines = 0;
    let corrupt = 0;
    // CRLF line ends (a file edited by hand) end a line as nedb's reader let them.
    for (const line of text.slice(0, text.lastIndexOf("\n") + 1).split(/\r?\n/)) {
      if (line === "") continue;
      lines += 1;
      let doc: unknown;
      try {
        doc = model.deserialize(line);
      } catch {
        corrupt += 1;
        continue;
      }
      // JSON that is not a document (a number, a string) is passed over, as nedb did; `null` was corrupt.
      if (doc === null) corrupt += 1;
      if (doc === null || typeof doc !== "object") continue;
      const d = doc as Record<string, unknown>;
      const created = d.$$indexCreated as { fieldName?: unknown } | undefined;
      if (d._id) {
        if (d.$$deleted === true) docs.delete(String(d._id));
        else docs.set(String(d._id), d as Stored);
      } else if (created && created.fieldName !== null && created.fieldName !== undefined) {
        indexes.set(String(created.fieldName), created as { fieldName: string });
      } else if (typeof d.$$indexRemoved === "string") {
        indexes.delete(d.$$indexRemoved);
      }
    }
    if (corrupt > 0) throw new Error(`${file}: ${corrupt} of ${lines} lines are corrupt; refusing to convert the nedb data directory`);
    // Every declared index is built (nedb refused a fieldName that is not a string); only a unique one can refuse a write.
    const unique = [...indexes.values()].map((raw) => new Index(raw)).filter((ix) => ix.unique);
    const all = [...docs.values()];
    for (const ix of unique) ix.insert(all);
    return new NedbCollection(docs, unique);
  }

  /** The documents in the order nedb's `find({})` gave them: by `_id`, as its `_id` index holds them. */
  documents(): Stored[] {
    return [...this.docs.values()].sort((a, b) => model.compareThings(a._id, b._id));
  }

  /** `update({ _id: id }, doc, { upsert: true })`: replaces or inserts the document, or throws and changes nothing. */
  put(id: string, doc: Stored): void {
    const before = this.docs.get(id);
    if (before) {
      const next = { ...doc, _id: before._id };
      this.all(
        (ix) => ix.update(before, next),
        (ix) => ix.revertUpdate(before, next),
      );
      this.docs.set(id, next);
    } else {
      this.all(
        (ix) => ix.insert(doc),
        (ix) => ix.remove(doc),
      );
      this.docs.set(String(doc._id), doc);
    }
  }

  /** `remove({ _id: id })`. */
  remove(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    for (const ix of this.unique) ix.remove(doc);
    this.docs.delete(id);
  }

  /** Applies a change to every unique index, or to none: one that refuses it undoes it on those before. */
  private all(change: (ix: Index) => void, undo: (ix: Index) => void): void {
    this.unique.forEach((ix, i) => {
      try {
        change(ix);
      } catch (err) {
        for (const done of this.unique.slice(0, i)) undo(done);
        throw err;
      }
    });
  }
}

const readIfThere = (file: string): Promise<string | null> =>
  readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw err;
  });

/** A data directory of the nedb store, with the commits its journal holds finished. */
export class NedbDataDir {
  private readonly collections = new Map<string, Promise<NedbCollection>>();

  private constructor(private readonly dir: string) {}

  static async open(dir: string): Promise<NedbDataDir> {
    const data = new NedbDataDir(dir);
    await data.recover();
    return data;
  }

  /** A collection's documents, as the nedb store would have read them. */
  async documents(name: string): Promise<Stored[]> {
    return (await this.collection(name)).documents();
  }

  private collection(name: string): Promise<NedbCollection> {
    if (!COLLECTION_NAME.test(name)) return Promise.reject(new Error(`Bad collection name ${name}`));
    let loaded = this.collections.get(name);
    if (!loaded) {
      const file = join(this.dir, `${name}.db`);
      loaded = (async () => NedbCollection.parse((await readIfThere(file)) ?? (await readIfThere(`${file}~`)) ?? "", file))();
      this.collections.set(name, loaded);
    }
    return loaded;
  }

  /** The journal's entries in id order (the order they were written), each applied or undone. */
  private async recover(): Promise<void> {
    const entries = (await this.collection(JOURNAL)).documents() as unknown as JournalEntry[];
    for (const entry of entries) {
      try {
        await this.apply(entry.afters);
      } catch {
        await this.apply([...entry.befores].reverse());
      }
    }
  }

  private async apply(images: Image[]): Promise<void> {
    for (const image of images) {
      const collection = await this.collection(image.collection);
      if (image.doc === null) collection.remove(image.id);
      else collection.put(image.id, image.doc);
    }
  }
}
