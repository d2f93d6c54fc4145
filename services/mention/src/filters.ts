import { MENTION_STATUS_WORDS, RELEVANCE_LABEL_WORDS } from "@earshot/contracts/fields";
import { enumValueOf, enumWordOf } from "@earshot/platform";
import type { mentionV1 } from "@earshot/proto";
import type { MentionFilterInput } from "./fields";

// The list_mentions filters as the gRPC message carries them, both ways, stated once for both sides of
// the wire: the edge builds the message from a request, the mention service reads it back (and builds it
// for a saved view's answer). Published as `@earshot/mention/filters`. An empty list filters nothing, as a
// member left out does; proto3 cannot tell the two apart, so reading back leaves empty lists out.

/** A mention's status on gRPC and its word, both ways, for both sides (the contract layer's, which presents mentions). */
export { MENTION_STATUS_WORDS, RELEVANCE_LABEL_WORDS };

/** The filters message of the given filters (any other members of the object are ignored). */
export const toFiltersMessage = (f: MentionFilterInput): mentionV1.MentionFilters => ({
  status: (f.status ?? []).map((word) => enumValueOf(MENTION_STATUS_WORDS, word)),
  keywordIds: [...(f.keywordId ?? [])],
  groupIds: [...(f.groupId ?? [])],
  sources: [...(f.source ?? [])],
  categoryIds: [...(f.categoryId ?? [])],
  sentiments: [...(f.sentiment ?? [])],
  q: f.q,
  authors: [...(f.author ?? [])],
  since: f.since ? new Date(f.since) : undefined,
  until: f.until ? new Date(f.until) : undefined,
  minRelevance: f.minRelevance,
  relevance: (f.relevance ?? []).map((word) => enumValueOf(RELEVANCE_LABEL_WORDS, word)),
});

/**
 * The filters a message carries, only the members that filter something. The values are the sender's:
 * the service checks them with its field schemas, the edge with its presenter.
 */
export const filtersOf = (f: mentionV1.MentionFilters | undefined): MentionFilterInput => {
  const out: Record<string, unknown> = {};
  if (!f) return out;
  const lists: Array<[keyof MentionFilterInput, string[]]> = [
    ["status", f.status.map((status) => enumWordOf(MENTION_STATUS_WORDS, status))],
    ["keywordId", f.keywordIds],
    ["groupId", f.groupIds],
    ["source", f.sources],
    ["categoryId", f.categoryIds],
    ["sentiment", f.sentiments],
    ["author", f.authors],
    ["relevance", f.relevance.map((label) => enumWordOf(RELEVANCE_LABEL_WORDS, label))],
  ];
  for (const [name, values] of lists) if (values.length > 0) out[name] = [...values];
  if (f.q !== undefined) out.q = f.q;
  if (f.minRelevance !== undefined) out.minRelevance = f.minRelevance;
  if (f.since) out.since = f.since.toISOString();
  if (f.until) out.until = f.until.toISOString();
  return out as MentionFilterInput;
};
