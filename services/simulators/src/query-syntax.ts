import { normalizeTerm, type SearchSpec, type SimPost } from "./world";

// The boolean search syntax X and Reddit share closely enough for one parser: quoted phrases, bare words
// (ANDed when side by side, or with an explicit AND), OR, parentheses, negation (X's `-term`, Reddit's
// `NOT term`) and `operator:value` filters (`lang:en`, `subreddit:rust`; others such as X's `is:retweet`
// are accepted and ignored, as the simulated platforms have no retweets). A parsed query is evaluated
// against each post, and also tells the world which phrases to search (and generate posts for).

export type QueryNode =
  | { t: "term"; v: string }
  | { t: "op"; name: string; v: string }
  | { t: "not"; c: QueryNode }
  | { t: "and"; c: QueryNode[] }
  | { t: "or"; c: QueryNode[] };

export class QuerySyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuerySyntaxError";
  }
}

type Token = { k: "(" } | { k: ")" } | { k: "-" } | { k: "phrase"; v: string } | { k: "word"; v: string };

const tokenize = (query: string): Token[] => {
  const out: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "(" || c === ")") {
      out.push({ k: c });
      i++;
    } else if (c === "-" && i + 1 < query.length && !/\s/.test(query[i + 1]!)) {
      out.push({ k: "-" });
      i++;
    } else if (c === '"') {
      const end = query.indexOf('"', i + 1);
      if (end < 0) throw new QuerySyntaxError("unterminated quoted phrase");
      out.push({ k: "phrase", v: query.slice(i + 1, end) });
      i = end + 1;
    } else {
      let j = i;
      while (j < query.length && !/[\s()"]/.test(query[j]!)) j++;
      out.push({ k: "word", v: query.slice(i, j) });
      i = j;
    }
  }
  return out;
};

const isWord = (t: Token | undefined, w: string): boolean => t?.k === "word" && t.v === w;

/** Parses a query; throws QuerySyntaxError on unbalanced parentheses, a dangling operator or nothing to search. */
export const parseQuery = (query: string): QueryNode => {
  const tokens = tokenize(query);
  let pos = 0;
  const peek = () => tokens[pos];
  const orExpr = (): QueryNode => {
    const c = [andExpr()];
    while (isWord(peek(), "OR")) {
      pos++;
      c.push(andExpr());
    }
    return c.length === 1 ? c[0]! : { t: "or", c };
  };
  const andExpr = (): QueryNode => {
    const c = [unary()];
    for (;;) {
      const next = peek();
      if (!next || next.k === ")" || isWord(next, "OR")) break;
      if (isWord(next, "AND")) pos++;
      c.push(unary());
    }
    return c.length === 1 ? c[0]! : { t: "and", c };
  };
  const unary = (): QueryNode => {
    const next = peek();
    if (next?.k === "-" || isWord(next, "NOT")) {
      pos++;
      return { t: "not", c: unary() };
    }
    return primary();
  };
  const primary = (): QueryNode => {
    const next = tokens[pos++];
    if (!next) throw new QuerySyntaxError("query ends where a term was expected");
    if (next.k === "(") {
      const inner = orExpr();
      if (tokens[pos++]?.k !== ")") throw new QuerySyntaxError("unbalanced parentheses");
      return inner;
    }
    if (next.k === ")" || next.k === "-") throw new QuerySyntaxError(`unexpected "${next.k}"`);
    if (next.k === "phrase") return { t: "term", v: next.v };
    if (next.v === "OR" || next.v === "AND") throw new QuerySyntaxError(`${next.v} needs a term on each side`);
    const op = /^([a-z_]+):(.+)$/.exec(next.v);
    if (op) return { t: "op", name: op[1]!, v: op[2]! };
    return { t: "term", v: next.v };
  };
  if (tokens.length === 0) throw new QuerySyntaxError("query is empty");
  const root = orExpr();
  if (pos < tokens.length) throw new QuerySyntaxError("unbalanced parentheses");
  return root;
};

/** Whether a post satisfies the query (phrases case-insensitive, as both platforms match). */
export const matchesQuery = (node: QueryNode, post: SimPost): boolean => {
  switch (node.t) {
    case "term":
      return normalizeTerm(`${post.title ?? ""} ${post.text}`).includes(normalizeTerm(node.v));
    case "op":
      if (node.name === "lang") return post.lang === node.v;
      if (node.name === "subreddit") return post.subreddit?.toLowerCase() === node.v.toLowerCase();
      return true;
    case "not":
      // A negated filter the simulator ignores (`-is:retweet`) must not exclude everything.
      return node.c.t === "op" && node.c.name !== "lang" && node.c.name !== "subreddit" ? true : !matchesQuery(node.c, post);
    case "and":
      return node.c.every((c) => matchesQuery(c, post));
    case "or":
      return node.c.some((c) => matchesQuery(c, post));
  }
};

/**
 * The phrases a matching post must contain one of: terms side by side join into one phrase, so a post
 * generated for it satisfies them all.
 */
const positivePhrases = (node: QueryNode): string[] => {
  switch (node.t) {
    case "term":
      return [node.v];
    case "op":
    case "not":
      return [];
    case "or":
      return node.c.flatMap(positivePhrases);
    case "and": {
      const terms = node.c.filter((c) => c.t === "term");
      if (terms.length === node.c.filter((c) => c.t !== "op" && c.t !== "not").length && terms.length > 0) return [terms.map((t) => t.v).join(" ")];
      return node.c.flatMap(positivePhrases);
    }
  }
};

/** Values of an operator that the whole query requires (`lang:en`, or `(lang:en OR lang:fr)`), if any. */
const requiredOp = (node: QueryNode, name: string): string[] | undefined => {
  const of = (n: QueryNode): string[] | undefined => {
    if (n.t === "op" && n.name === name) return [n.v];
    if (n.t === "or" && n.c.every((c) => c.t === "op" && c.name === name)) return n.c.map((c) => (c as { v: string }).v);
    return undefined;
  };
  if (node.t === "and") return node.c.map(of).find((v) => v !== undefined);
  return of(node);
};

/** What to ask the world for: a superset of the query's posts, narrowed afterwards by `matchesQuery`. */
export const searchSpecOf = (node: QueryNode): SearchSpec => {
  const lang = requiredOp(node, "lang");
  const subreddit = requiredOp(node, "subreddit");
  return { anyOf: positivePhrases(node), ...(lang ? { lang } : {}), ...(subreddit?.length === 1 ? { subreddit: subreddit[0] } : {}) };
};
