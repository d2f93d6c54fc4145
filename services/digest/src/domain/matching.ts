import type { Filter } from "@earshot/platform/core";
import type { MentionDoc, RuleDoc } from "../store";

// Whether a mention is one a rule is about: each non-empty filter list must hold one of the mention's
// values (keywords and groups: any of its keywords or groups); empty lists filter nothing. Said twice, for
// a mention in hand (an instant alert's) and as a store filter (a digest's, so the store counts and caps
// only the mentions the rule is about); a test holds the two to the same answers.

const anyOf = (wanted: readonly string[], have: readonly string[]) => wanted.length === 0 || have.some((v) => wanted.includes(v));

export const ruleMatches = (rule: Pick<RuleDoc, "filters">, m: Pick<MentionDoc, "keywordIds" | "groupIds" | "source" | "sentiment">): boolean => {
  const f = rule.filters;
  return anyOf(f.keywordIds, m.keywordIds) && anyOf(f.groupIds, m.groupIds) && anyOf(f.sources, [m.source]) && anyOf(f.sentiments, [m.sentiment]);
};

/** `ruleMatches` as a filter of the mentions collection (`$in` on an array field matches any element). */
export const ruleFilter = (rule: Pick<RuleDoc, "filters">): Filter => {
  const f = rule.filters;
  const lists: Array<[string, readonly string[]]> = [
    ["keywordIds", f.keywordIds],
    ["groupIds", f.groupIds],
    ["source", f.sources],
    ["sentiment", f.sentiments],
  ];
  return Object.fromEntries(lists.filter(([, wanted]) => wanted.length > 0).map(([field, wanted]) => [field, { $in: [...wanted] }]));
};
