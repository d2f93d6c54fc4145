import type { KeywordHit, MatchablePost, MatcherKeyword, TermMatch } from "./types";

// Test support: the matching rules written as plainly as possible, keyword by keyword and position by
// position, sharing no code with the compiled matcher (no tables, no trie, no caches). The property test
// checks that both give the same answer. Slow by design; never use it to match real posts.

type Entry = { unit: number; origin: number; firstOfChar: boolean; lastOfChar: boolean; space: boolean };

const isWordChar = (ch: string): boolean => /^[\p{L}\p{N}\p{M}]$/u.test(ch) && !/^[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]$/u.test(ch);
const isNoSpaceChar = (ch: string): boolean =>
  /^[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Thai}\p{Script_Extensions=Lao}\p{Script_Extensions=Khmer}\p{Script_Extensions=Myanmar}]$/u.test(
    ch,
  );
const isWhitespace = (ch: string): boolean => /^\s$/u.test(ch);

const foldChar = (ch: string): string => {
  if (ch.length === 1 && ch >= "\uD800" && ch <= "\uDFFF") return ch;
  let lower = ch.toLowerCase();
  if (lower === "ς") lower = "σ";
  return lower.normalize("NFD").replace(/[\u0300-\u036F]|[\u1AB0-\u1AFF]|[\u1DC0-\u1DFF]|[\u20D0-\u20FF]|[\uFE20-\uFE2F]/g, "");
};

// Canonical ordering moves a mark past a following one of lower combining class and never moves a
// starter; U+0334 (class 1) and U+0345 (class 240) catch every class above 0.
const isNonStarter = (ch: string): boolean => {
  const first = String.fromCodePoint(ch.normalize("NFD").codePointAt(0) as number);
  return (first + "\u0334").normalize("NFD") !== `${first}\u0334` || ("\u0345" + first).normalize("NFD") !== `\u0345${first}`;
};
const endsWithNonStarter = (ch: string): boolean => isNonStarter([...ch.normalize("NFD")].pop() as string);

/**
 * Every unit of `s` after folding (or not), each whitespace run as one space, with where it came from.
 * Folded: character by character. Exact: the canonical decomposition (NFD); a character ending with a
 * mark and the marks after it whose NFD is not the NFD of each in turn are read as one character.
 */
const entriesOf = (s: string, fold: boolean): Entry[] => {
  const out: Entry[] = [];
  const chars = [...s];
  const origins: number[] = [];
  let at = 0;
  for (const ch of chars) {
    origins.push(at);
    at += ch.length;
  }
  const push = (units: string, origin: number) => {
    for (let k = 0; k < units.length; k++) out.push({ unit: units.charCodeAt(k), origin, firstOfChar: k === 0, lastOfChar: k === units.length - 1, space: false });
  };
  for (let i = 0; i < chars.length; ) {
    const ch = chars[i] as string;
    const origin = origins[i] as number;
    if (isWhitespace(ch)) {
      const previous = out[out.length - 1];
      if (!previous?.space) out.push({ unit: 0x20, origin, firstOfChar: true, lastOfChar: true, space: true });
      i++;
    } else if (fold) {
      push(foldChar(ch), origin);
      i++;
    } else {
      let j = i + 1;
      if (endsWithNonStarter(ch)) while (j < chars.length && isNonStarter(chars[j] as string)) j++;
      const run = chars.slice(i, j);
      const canonical = run.join("").normalize("NFD");
      if (canonical !== run.map((c) => c.normalize("NFD")).join("")) push(canonical, origin);
      else run.forEach((c, k) => push(c.normalize("NFD"), origins[i + k] as number));
      i = j;
    }
  }
  return out;
};

const phraseUnits = (phrase: string, fold: boolean): number[] => {
  const entries = entriesOf(phrase, fold);
  while (entries.length > 0 && entries[0]?.space) entries.shift();
  while (entries.length > 0 && entries[entries.length - 1]?.space) entries.pop();
  return entries.map((e) => e.unit);
};

/** The character (code point, or lone surrogate) that ends just before `i`. */
const charBefore = (s: string, i: number): string => {
  if (i >= 2 && /[\uDC00-\uDFFF]/.test(s[i - 1] as string) && /[\uD800-\uDBFF]/.test(s[i - 2] as string)) return s.slice(i - 2, i);
  return s.slice(i - 1, i);
};

/** The character (code point, or lone surrogate) that starts at `i`. */
const charAt = (s: string, i: number): string => String.fromCodePoint(s.codePointAt(i) as number);

/** Every [start, end) where `phrase` occurs in `field` on word boundaries. */
const occurrences = (field: string, phrase: string, caseSensitive: boolean): Array<[number, number]> => {
  const want = phraseUnits(phrase, !caseSensitive);
  if (want.length === 0) return [];
  const have = entriesOf(field, !caseSensitive);
  const found: Array<[number, number]> = [];
  for (let i = 0; i + want.length <= have.length; i++) {
    if (!want.every((u, k) => have[i + k]?.unit === u)) continue;
    const first = have[i] as Entry;
    const last = have[i + want.length - 1] as Entry;
    if (!first.firstOfChar || !last.lastOfChar) continue;
    const start = first.origin;
    const end = i + want.length < have.length ? (have[i + want.length] as Entry).origin : field.length;
    if (start > 0) {
      const before = charBefore(field, start);
      const startChar = charAt(field, start);
      if (isWordChar(before) && !isNoSpaceChar(before) && !isNoSpaceChar(startChar)) continue;
    }
    if (end < field.length) {
      const lastChar = charAt(field, last.origin);
      const after = charAt(field, end);
      if (isWordChar(lastChar) && isWordChar(after) && !isNoSpaceChar(lastChar) && !isNoSpaceChar(after)) continue;
    }
    found.push([start, end]);
  }
  return found;
};

const noAt = (s: string): string => (s.startsWith("@") ? s.slice(1) : s).toLowerCase();
const primaryLanguage = (s: string): string => s.trim().toLowerCase().split(/[-_]/)[0] as string;
const noR = (s: string): string => s.trim().replace(/^\/?r\//i, "").toLowerCase();
const given = (list: readonly string[] | undefined): list is readonly string[] => list !== undefined && list.length > 0;

const filtersPass = (k: MatcherKeyword, post: MatchablePost): boolean => {
  const f = k.filters;
  if (given(f.languages)) {
    if (!post.lang || post.lang.trim() === "") return false;
    if (!f.languages.map(primaryLanguage).includes(primaryLanguage(post.lang))) return false;
  }
  if (f.minFollowers !== undefined) {
    const followers = post.author.followers;
    if (followers === undefined || !(followers >= f.minFollowers)) return false;
  }
  if (given(f.excludeAuthors)) {
    for (const entry of f.excludeAuthors) {
      if (post.author.id === entry) return false;
      if (noAt(post.author.handle) !== "" && noAt(post.author.handle) === noAt(entry)) return false;
    }
  }
  if (given(f.subreddits) && post.source === "reddit") {
    let name = post.subreddit && post.subreddit.trim() !== "" ? noR(post.subreddit) : undefined;
    if (name === undefined && post.url) name = /\/r\/([A-Za-z0-9_]+)/.exec(post.url)?.[1]?.toLowerCase();
    if (name === undefined || !f.subreddits.map(noR).includes(name)) return false;
  }
  if (given(f.youtubeChannels) && post.source === "youtube") {
    const ok = f.youtubeChannels.some((raw) => {
      const c = raw.trim();
      if (c.startsWith("@")) return !!post.channelHandle && noAt(post.channelHandle) === noAt(c);
      return post.channelId === c;
    });
    if (!ok) return false;
  }
  return true;
};

/** What `compileMatcher(keywords).match(post)` must return, computed the slow, obvious way. */
export const referenceMatch = (keywords: readonly MatcherKeyword[], post: MatchablePost): KeywordHit[] => {
  const fields: Array<["title" | "text", string]> = [];
  if (post.title) fields.push(["title", post.title]);
  if (post.text) fields.push(["text", post.text]);
  const hits: KeywordHit[] = [];
  for (const k of keywords) {
    if (!k.sources.includes(post.source)) continue;
    if (!filtersPass(k, post)) continue;
    const occursAnywhere = (p: string) => fields.some(([, value]) => occurrences(value, p, k.caseSensitive).length > 0);
    const blank = (p: string) => phraseUnits(p, !k.caseSensitive).length === 0;
    if (k.excludedTerms.some((p) => !blank(p) && occursAnywhere(p))) continue;
    if ((k.filters.allOf ?? []).some((p) => !blank(p) && !occursAnywhere(p))) continue;
    // One term per phrase as matched, the first written (value, then aliases).
    const terms: string[] = [];
    const phrases = new Set<string>();
    for (const written of [k.value, ...k.aliases].map((t) => t.trim().replace(/\s+/g, " "))) {
      const phrase = phraseUnits(written, !k.caseSensitive).join(",");
      if (phrases.has(phrase)) continue;
      phrases.add(phrase);
      terms.push(written);
    }
    const matches: TermMatch[] = [];
    for (const term of terms) {
      for (const [field, value] of fields) {
        for (const [start, end] of occurrences(value, term, k.caseSensitive)) matches.push({ keywordId: k.id, term, field, start, end });
      }
    }
    if (matches.length === 0) continue;
    matches.sort(
      (a, b) =>
        Number(a.field === "text") - Number(b.field === "text") || a.start - b.start || a.end - b.end || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0),
    );
    hits.push({ keywordId: k.id, groupId: k.groupId, matches: matches.slice(0, 16) });
  }
  return hits;
};
