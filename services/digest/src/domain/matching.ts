import { UNSCORED_RELEVANCE } from "@earshot/contracts/fields";
import type { Filter } from "@earshot/platform/core";
import type { MentionDoc, RuleDoc } from "../store";

// Whether a mention is one a rule is about: each non-empty filter list must hold one of the mention's
// values (keywords and groups: any of its keywords or groups); empty lists filter nothing. Said twice, for
// a mention in hand (an instant alert's) and as a store filter (a digest's, so the store counts and caps
// only the mentions the rule is about); a test holds the two to the same answers. A relevance bound keeps
// mentions whose stored score reaches it, a mention without one counting as 0.5 (UNSCORED_RELEVANCE).

const anyOf = (wanted: readonly string[], have: readonly string[]) => wanted.length === 0 || have.some((v) => wanted.includes(v));

export const ruleMatches = (rule: Pick<RuleDoc, "filters">, m: Pick<MentionDoc, "keywordIds" | "groupIds" | "source" | "sentiment" | "relevanceScore">): boolean => {
  const f = rule.filters;
  const relevantEnough = !f.minRelevance || (m.relevanceScore ?? UNSCORED_RELEVANCE.score) >= f.minRelevance;
  return anyOf(f.keywordIds, m.keywordIds) && anyOf(f.groupIds, m.groupIds) && anyOf(f.sources, [m.source]) && anyOf(f.sentiments, [m.sentiment]) && relevantEnough;
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
  const filter: Filter = Object.fromEntries(lists.filter(([, wanted]) => wanted.length > 0).map(([field, wanted]) => [field, { $in: [...wanted] }]));
  if (f.minRelevance) {
    const scored: Filter = { relevanceScore: { $gte: f.minRelevance } };
    if (f.minRelevance <= UNSCORED_RELEVANCE.score) filter.$or = [scored, { relevanceScore: { $exists: false } }];
    else Object.assign(filter, scored);
  }
  return filter;
};
