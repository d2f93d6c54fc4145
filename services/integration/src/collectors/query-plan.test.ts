import fc from "fast-check";
import { keyword } from "./query-test-support";
import { planQueries, termOf } from "./query-plan";
import { X_DIALECT } from "./x";

describe("query planning", () => {
  it("quotes phrases and writes handles, hashtags and cashtags as written", () => {
    expect(termOf("acme rocket")).toBe('"acme rocket"');
    expect(termOf('say "hi"')).toBe('"say hi"');
    expect(["@acme", "#acme", "$ACME"].map(termOf)).toEqual(["@acme", "#acme", "$ACME"]);
  });

  it("ORs the keywords that share exclusions and splits those that do not", () => {
    const plan = planQueries(
      [keyword("acme", { id: "kw_1", excludedTerms: ["Beta"] }), keyword("globex", { id: "kw_2" }), keyword("initech", { id: "kw_3", excludedTerms: ["beta"] })],
      X_DIALECT,
    );
    expect(plan.queries).toEqual([
      { text: '("acme" OR "initech") -"beta" -is:retweet', keywordIds: ["kw_1", "kw_3"] },
      { text: '("globex") -is:retweet', keywordIds: ["kw_2"] },
    ]);
  });

  it("names a term once even when two keywords share it", () => {
    const plan = planQueries([keyword("acme", { id: "kw_1" }), keyword("ACME", { id: "kw_2", aliases: ["acme inc"] })], X_DIALECT);
    expect(plan.queries.map((q) => q.text)).toEqual(['("acme" OR "acme inc") -is:retweet']);
  });

  it("drops exclusions rather than a term when a term cannot fit beside them", () => {
    const long = "x".repeat(400);
    const plan = planQueries([keyword(long, { excludedTerms: ["a".repeat(60), "b".repeat(60)] })], X_DIALECT);
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.text.length).toBeLessThanOrEqual(512);
    expect(plan.queries[0]!.text).toContain(long);
    expect(planQueries([keyword("y".repeat(600))], X_DIALECT)).toEqual({ queries: [], dropped: [`"${"y".repeat(600)}"`] });
  });

  it("keeps every query within 512 characters and every term in some query", () => {
    const term = fc.stringMatching(/^[a-z][a-z ]{0,40}[a-z]$/);
    const kw = fc.record({ value: term, aliases: fc.array(term, { maxLength: 8 }), excludedTerms: fc.array(term, { maxLength: 3 }), languages: fc.subarray(["en", "fr", "de"]) });
    fc.assert(
      fc.property(fc.array(kw, { minLength: 1, maxLength: 30 }), (specs) => {
        const keywords = specs.map((s, i) => keyword(s.value, { id: `kw_${String(i).padStart(3, "0")}`, aliases: s.aliases, excludedTerms: s.excludedTerms, filters: { languages: s.languages } }));
        const { queries, dropped } = planQueries(keywords, X_DIALECT);
        expect(dropped).toEqual([]);
        for (const q of queries) expect(q.text.length).toBeLessThanOrEqual(512);
        for (const k of keywords) for (const t of [k.value, ...k.aliases]) expect(queries.some((q) => q.text.toLowerCase().includes(termOf(t).toLowerCase()))).toBe(true);
        // Never narrower: a query carries only exclusions that all of its keywords have.
        for (const q of queries) {
          const excluded = [...q.text.matchAll(/-"([^"]+)"/g)].map((m) => m[1]!);
          const langs = [...q.text.matchAll(/lang:([a-z]+)/g)].map((m) => m[1]!);
          for (const id of q.keywordIds) {
            const k = keywords.find((x) => x.id === id)!;
            if (langs.length) expect(k.filters.languages?.length && k.filters.languages.every((l) => langs.includes(l))).toBeTruthy();
            for (const e of excluded) expect(k.excludedTerms.map((t) => termOf(t).slice(1, -1).toLowerCase())).toContain(e);
          }
        }
      }),
      { seed: 20261123, numRuns: 200 },
    );
  });
});
