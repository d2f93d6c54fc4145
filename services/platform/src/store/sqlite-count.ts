// SQL pieces of countBy on the embedded store (see embedded.ts), so that a count never parses a document
// or calls back into JavaScript per row: SQLite walks the index range of the period and groups.

/**
 * The bucket of a time `t` (a SQL expression, milliseconds) among ascending starts: the index of the last
 * start at or before it, -1 before the first or when `t` is not a number. A binary search written as nested
 * CASEs (about log2(n) comparisons a row, evaluated inside SQLite's loop); the starts are parameters, pushed
 * in the order their placeholders appear, so one statement serves every request with as many buckets.
 */
export const bucketSql = (t: string, starts: readonly number[], params: Array<string | number>, numeric = true): string => {
  const search = (lo: number, hi: number): string => {
    if (lo === hi) return String(lo);
    const mid = (lo + hi + 1) >> 1;
    params.push(starts[mid] as number);
    return `CASE WHEN ${t} < ? THEN ${search(lo, mid - 1)} ELSE ${search(mid, hi)} END`;
  };
  params.push(starts[0] as number);
  // Text sorts after every number in SQLite: a time that is not a number is kept out explicitly.
  const guard = numeric ? "" : `typeof(${t}) IN ('integer', 'real') AND `;
  return `(CASE WHEN ${guard}${t} >= ? THEN ${search(0, starts.length - 1)} ELSE -1 END)`;
};

/**
 * The count key of a field's key (keyExpr, or a side table's element key) on a field that has held no
 * number, boolean or Date: a string is itself, anything else (missing, null, an object, an array) null.
 */
export const stringKeySql = (key: string): string => `(CASE WHEN typeof(${key}) = 'text' THEN ${key} END)`;

/** Whether every value a field holds (the value, or an array's elements) has a key that says its count key. */
export const holdsStringKeys = (value: unknown): boolean => {
  const values = Array.isArray(value) ? value : [value];
  return values.every((v) => v === undefined || v === null || typeof v === "string" || (typeof v === "object" && !(v instanceof Date)));
};
