import type { MentionDoc, RuleDoc } from "../store";

// Whether a mention is one a rule is about: each non-empty filter list must hold one of the mention's
// values (keywords and groups: any of its keywords or groups); empty lists filter nothing.

const anyOf = (wanted: readonly string[], have: readonly string[]) => wanted.length === 0 || have.some((v) => wanted.includes(v));

export const ruleMatches = (rule: Pick<RuleDoc, "filters">, m: Pick<MentionDoc, "keywordIds" | "groupIds" | "source" | "sentiment">): boolean => {
  const f = rule.filters;
  return anyOf(f.keywordIds, m.keywordIds) && anyOf(f.groupIds, m.groupIds) && anyOf(f.sources, [m.source]) && anyOf(f.sentiments, [m.sentiment]);
};
