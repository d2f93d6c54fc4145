// A poll's cursor is one small state per query, keyed by the query itself: when a project's keywords
// change, the queries that did not change keep their place, and queries no longer asked are forgotten.

export interface QueryCursors<S> {
  v: 1;
  queries: Record<string, S>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The per-query states of a stored cursor; anything unreadable counts as no cursor (a fresh start, not a crash). */
export const queryStates = <S>(cursor: unknown, isState: (v: unknown) => v is S): Map<string, S> => {
  const out = new Map<string, S>();
  if (!isRecord(cursor) || cursor.v !== 1 || !isRecord(cursor.queries)) return out;
  for (const [key, state] of Object.entries(cursor.queries)) if (isState(state)) out.set(key, state);
  return out;
};

export const cursorOf = <S>(states: Map<string, S>): QueryCursors<S> => ({ v: 1, queries: Object.fromEntries(states) });

export const isRecordValue = isRecord;
