import { matchesQuery, parseQuery, QuerySyntaxError, searchSpecOf } from "./query-syntax";
import type { SimPost } from "./world";

const post = (text: string, more: Partial<SimPost> = {}): SimPost => ({
  platform: "x",
  key: 1n,
  createdAtMs: 0,
  text,
  author: { id: "1", handle: "a", name: "a", followers: 0 },
  lang: "en",
  kind: "post",
  likes: 0,
  replies: 0,
  shares: 0,
  views: 0,
  ...more,
});

const matches = (query: string, p: SimPost) => matchesQuery(parseQuery(query), p);

describe("simulated search syntax", () => {
  it("matches quoted phrases, bare words, handles and tags case-insensitively", () => {
    expect(matches('"acme rocket"', post("The ACME Rocket flies"))).toBe(true);
    expect(matches('"acme rocket"', post("acme's rocket"))).toBe(false);
    expect(matches("acme rocket", post("rocket by acme"))).toBe(true);
    expect(matches("@acme OR #acmeday", post("hello #AcmeDay"))).toBe(true);
  });

  it("honours OR, AND, parentheses and both negations", () => {
    const q = '("acme" OR "globex") -"beta" NOT spam';
    expect(matches(q, post("globex release"))).toBe(true);
    expect(matches(q, post("globex beta"))).toBe(false);
    expect(matches(q, post("acme spam"))).toBe(false);
    expect(matches("acme AND (rocket OR anvil)", post("acme anvil"))).toBe(true);
    expect(matches("acme AND (rocket OR anvil)", post("acme"))).toBe(false);
  });

  it("filters by lang and subreddit and ignores operators it does not simulate", () => {
    expect(matches('"acme" lang:fr -is:retweet', post("acme", { lang: "fr" }))).toBe(true);
    expect(matches('"acme" (lang:de OR lang:en)', post("acme", { lang: "fr" }))).toBe(false);
    expect(matches('acme subreddit:Rust', post("acme", { subreddit: "rust" }))).toBe(true);
    expect(matches('acme subreddit:rust', post("acme", { subreddit: "golang" }))).toBe(false);
  });

  it("asks the world for the positive phrases and the languages the whole query requires", () => {
    expect(searchSpecOf(parseQuery('("acme" OR @acme) -"beta" -is:retweet (lang:en OR lang:fr)'))).toEqual({ anyOf: ["acme", "@acme"], lang: ["en", "fr"] });
    expect(searchSpecOf(parseQuery("acme rocket subreddit:rust"))).toEqual({ anyOf: ["acme rocket"], subreddit: "rust" });
  });

  it("refuses unbalanced parentheses, unterminated phrases and dangling operators", () => {
    for (const bad of ["(acme", "acme)", '"acme', "acme OR", "", "()"]) expect(() => parseQuery(bad)).toThrow(QuerySyntaxError);
  });
});
