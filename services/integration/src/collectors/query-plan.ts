import type { CollectKeyword } from "./collector";

// Turns a project's keywords into platform search queries. ORing keywords puts every filter of the query
// on all of them, so only keywords whose exclusions agree share a query (one keyword's `-"term"` must
// never hide another keyword's posts), and a language filter is added only when every keyword of the
// query restricts languages (the union of theirs). The mention service re-checks every filter of every
// keyword, so a query may find more than its keywords match, never less. Queries longer than the
// platform allows are split; keywords are taken in id order so that adding a keyword leaves the earlier
// queries (and their cursors) as they were.

export interface QueryDialect {
  maxLength: number;
  /** How the platform writes "not this phrase". */
  exclude(term: string): string;
  /** The language filter, or undefined when the platform has none. */
  languages?(langs: string[]): string;
  /** Always appended (X: `-is:retweet`, as a retweet repeats a post already found). */
  always?: string;
}

export interface PlannedQuery {
  text: string;
  keywordIds: string[];
}

export interface QueryPlan {
  queries: PlannedQuery[];
  /** Terms too long for any query of the platform (reported, not searched). */
  dropped: string[];
}

const HANDLE_LIKE = /^[@#$][\p{L}\p{N}_]+$/u;

/** A term as the platform reads it: handles, hashtags and cashtags as written, everything else a quoted phrase. */
export const termOf = (raw: string): string => {
  const s = raw.trim();
  if (HANDLE_LIKE.test(s)) return s;
  // Neither platform escapes quotes inside a phrase; a quote is only punctuation in a keyword anyway.
  return `"${s.replace(/"/g, " ").replace(/\s+/g, " ").trim()}"`;
};

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

const groupKey = (k: CollectKeyword) =>
  JSON.stringify(
    unique(k.excludedTerms.map((t) => t.trim().toLowerCase()).filter(Boolean)).sort(),
  );

const compose = (terms: string[], suffix: string[]) => [`(${terms.join(" OR ")})`, ...suffix].join(" ");

export const planQueries = (keywords: CollectKeyword[], dialect: QueryDialect): QueryPlan => {
  const groups = new Map<string, CollectKeyword[]>();
  for (const k of [...keywords].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const key = groupKey(k);
    groups.set(key, [...(groups.get(key) ?? []), k]);
  }
  const queries: PlannedQuery[] = [];
  const dropped: string[] = [];
  for (const [key, members] of groups) {
    const exclusions = (JSON.parse(key) as string[]).map((t) => dialect.exclude(termOf(t)));
    const langs = members.every((k) => (k.filters.languages ?? []).length > 0) ? unique(members.flatMap((k) => k.filters.languages ?? [])).sort() : [];
    const fixed = [...(langs.length && dialect.languages ? [dialect.languages(langs)] : []), ...(dialect.always ? [dialect.always] : [])];
    const terms: Array<{ term: string; keywordId: string }> = [];
    const seen = new Set<string>();
    for (const k of members) {
      for (const raw of [k.value, ...k.aliases]) {
        const term = termOf(raw);
        if (term === '""' || seen.has(term.toLowerCase())) continue;
        seen.add(term.toLowerCase());
        terms.push({ term, keywordId: k.id });
      }
    }
    let chunk: typeof terms = [];
    const suffixFor = (ts: string[]) => {
      // Exclusions go first when a single term cannot fit beside them: broader, never narrower.
      const excl = [...exclusions];
      while (excl.length && compose(ts, [...excl, ...fixed]).length > dialect.maxLength) excl.pop();
      return [...excl, ...fixed];
    };
    const flush = () => {
      if (!chunk.length) return;
      const ts = chunk.map((c) => c.term);
      queries.push({ text: compose(ts, suffixFor(ts)), keywordIds: unique(chunk.map((c) => c.keywordId)) });
      chunk = [];
    };
    for (const t of terms) {
      if (compose([t.term], fixed).length > dialect.maxLength) {
        dropped.push(t.term);
        continue;
      }
      const next = [...chunk, t].map((c) => c.term);
      if (chunk.length && compose(next, [...exclusions, ...fixed]).length > dialect.maxLength) flush();
      chunk.push(t);
    }
    flush();
  }
  return { queries, dropped };
};
