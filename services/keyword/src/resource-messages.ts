import { enumValueOf, SOURCE_WORDS } from "@earshot/platform";
import type { commonV1, keywordV1 } from "@earshot/proto";
import type { KeywordDoc, KeywordGroupDoc } from "./store";

// A keyword and a keyword group as gRPC messages: what the API's reads answer and what the events carry
// (`keyword.*`, `keyword_group.*`), so a webhook's data is what get_keyword and list_keyword_groups present.

/** A group with the counts list_keyword_groups shows. */
export interface GroupView {
  group: KeywordGroupDoc;
  keywordCount: number;
  inactiveKeywordCount: number;
}

/** A keyword's filters as a message: every list present (empty when unset), as the reads and events carry them. */
export const filtersMessage = (k: KeywordDoc): keywordV1.KeywordFilters => ({
  languages: [...(k.filters.languages ?? [])],
  minFollowers: k.filters.minFollowers,
  excludeAuthors: [...(k.filters.excludeAuthors ?? [])],
  subreddits: [...(k.filters.subreddits ?? [])],
  youtubeChannels: [...(k.filters.youtubeChannels ?? [])],
  allOf: [...(k.filters.allOf ?? [])],
});

export const toKeywordMessage = (k: KeywordDoc): keywordV1.Keyword => ({
  id: k._id,
  projectId: k.projectId,
  groupId: k.groupId,
  value: k.value,
  sources: k.sources.map((s) => enumValueOf<commonV1.Source>(SOURCE_WORDS, s)),
  aliases: [...k.aliases],
  excludedTerms: [...k.excludedTerms],
  filters: filtersMessage(k),
  caseSensitive: k.caseSensitive,
  active: k.active,
  createdAt: k.createdAt,
  updatedAt: k.updatedAt,
  deactivatedAt: k.active ? undefined : k.deactivatedAt,
});

export const toGroupMessage = (v: GroupView): keywordV1.KeywordGroup => ({
  id: v.group._id,
  projectId: v.group.projectId,
  name: v.group.name,
  order: v.group.order,
  isDefault: v.group.kind !== "custom",
  keywordCount: v.keywordCount,
  inactiveKeywordCount: v.inactiveKeywordCount,
  createdAt: v.group.createdAt,
  updatedAt: v.group.updatedAt,
});
