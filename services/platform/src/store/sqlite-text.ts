// Text indexes on the embedded store: an index declared with `text: <field>` (a field holding words) is kept
// as an SQLite full-text index (FTS5) of that field instead of a side table of one row per word
// (sqlite-multikey.ts). A mention has about a dozen words: a side table costs a dozen B-tree rows (and their
// id index) per write, FTS5 a few entries in its pending segment, merged later in bulk.
//
// The full-text table is contentless (it keeps no copy of the text) and keyed by the collection row's rowid;
// triggers on the collection keep it current on every insert, update and delete (TTL deletes included). Rows
// keep their rowid across updates (upserts update in place) and across `VACUUM INTO` (a backup copies tables
// with their rowids), so the key stays valid.
//
// What it answers: the documents whose field holds the word, as an element of an array or as the value.
// The `ascii` tokenizer splits at any ASCII character other than a letter or digit and lower-cases ASCII
// letters (non-ASCII characters are always part of a token), so for a query word made of lower-case ASCII
// letters, digits and non-ASCII characters only (a "plain" word) the full-text match is a superset of the
// equality: every document holding the word matches. It is exact while every string the field has held is
// plain too (a fact the store keeps per index, like its "Dates only" fact): then counts use it alone.

export interface TextIndex {
  /** The full-text table's quoted name. */
  sql: string;
  /** The field holding words. */
  field: string;
  /** True while every string the field has held is a plain word (see above). */
  plain: boolean;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const sqlText = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const jsonPathOf = (field: string): string => `$.${field.split(".").map((p) => `"${p.replace(/"/g, '""')}"`).join(".")}`;

export const textIndex = (hash: string, field: string, plain: boolean): TextIndex => ({ sql: quote(`t_${hash}`), field, plain });

/** A word the `ascii` tokenizer keeps as one token, unchanged: no ASCII character but a-z and 0-9. */
export const isPlainWord = (v: unknown): v is string => {
  if (typeof v !== "string" || v.length === 0) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x80 && !((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a))) return false;
  }
  return true;
};

/** Whether every string a field's value holds (the value, or its elements) is a plain word. */
export const holdsPlainWords = (value: unknown): boolean => {
  const values = Array.isArray(value) ? value : [value];
  return values.every((v) => typeof v !== "string" || isPlainWord(v));
};

/** The text indexed for a document (`src` is its JSON): its field's strings (the value, or the elements), space-separated. */
const textOf = (ix: TextIndex, src: string): string =>
  `(SELECT group_concat(value, ' ') FROM json_each(${src}, ${sqlText(jsonPathOf(ix.field))}) WHERE type = 'text')`;

/** SQL creating the full-text table and the triggers that keep it current (idempotent). */
export const createTextSql = (ix: TextIndex, table: string): string => {
  const name = ix.sql.slice(1, -1);
  return [
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${ix.sql} USING fts5(w, content='', contentless_delete=1, tokenize='ascii', detail=none);`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(`${name}_ins`)} AFTER INSERT ON ${table} BEGIN INSERT INTO ${ix.sql} (rowid, w) VALUES (new.rowid, ${textOf(ix, "new.doc")}); END;`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(`${name}_upd`)} AFTER UPDATE OF doc ON ${table} BEGIN DELETE FROM ${ix.sql} WHERE rowid = old.rowid; ` +
      `INSERT INTO ${ix.sql} (rowid, w) VALUES (new.rowid, ${textOf(ix, "new.doc")}); END;`,
    `CREATE TRIGGER IF NOT EXISTS ${quote(`${name}_del`)} AFTER DELETE ON ${table} BEGIN DELETE FROM ${ix.sql} WHERE rowid = old.rowid; END;`,
  ].join("\n");
};

/** Fills a new full-text table from the documents already in the collection. */
export const fillTextSql = (ix: TextIndex, table: string): string => `INSERT INTO ${ix.sql} (rowid, w) SELECT rowid, ${textOf(ix, "doc")} FROM ${table}`;

export const dropTextSql = (ix: TextIndex): string => {
  const name = ix.sql.slice(1, -1);
  return [...["ins", "upd", "del"].map((t) => `DROP TRIGGER IF EXISTS ${quote(`${name}_${t}`)};`), `DROP TABLE IF EXISTS ${ix.sql};`].join("\n");
};

/** An FTS5 query for documents holding every one of `words` (plain words). */
export const matchAll = (words: string[]): string => words.map((w) => `"${w.replace(/"/g, '""')}"`).join(" AND ");
