import { enumWords, type EnumWords } from "@earshot/platform";
import { integrationV1, mentionV1 } from "@earshot/proto";

// The field rules several services share, declared once in the contract layer: a service that checks or
// filters by one of them (the mention service labels mentions, the alert service filters rules by label)
// reads it here rather than from the other service's package, and so do the resource presenters
// (`./resources`), which the edge and the webhook service both present with.

/** A mention's sentiment labels. */
export const SENTIMENTS = ["positive", "neutral", "negative"] as const;
export type SentimentLabel = (typeof SENTIMENTS)[number];

/** A mention's triage statuses. */
export const MENTION_STATUSES = ["open", "done", "follow_up"] as const;
export type MentionStatus = (typeof MENTION_STATUSES)[number];

/** A mention's status on gRPC (`earshot.mention.v1.MentionStatus`) and its word, both ways, for every side. */
export const MENTION_STATUS_WORDS: EnumWords<mentionV1.MentionStatus, MentionStatus> = enumWords([
  [mentionV1.MentionStatus.MENTION_STATUS_OPEN, "open"],
  [mentionV1.MentionStatus.MENTION_STATUS_DONE, "done"],
  [mentionV1.MentionStatus.MENTION_STATUS_FOLLOW_UP, "follow_up"],
]);

/** What a mention's relevance score says about it (the relevance filter's words). */
export const RELEVANCE_LABELS = ["relevant", "uncertain", "irrelevant"] as const;
export type RelevanceLabel = (typeof RELEVANCE_LABELS)[number];
/** A relevance label on gRPC (`earshot.mention.v1.RelevanceLabel`) and its word, both ways. */
export const RELEVANCE_LABEL_WORDS: EnumWords<mentionV1.RelevanceLabel, RelevanceLabel> = enumWords([
  [mentionV1.RelevanceLabel.RELEVANCE_LABEL_RELEVANT, "relevant"],
  [mentionV1.RelevanceLabel.RELEVANCE_LABEL_UNCERTAIN, "uncertain"],
  [mentionV1.RelevanceLabel.RELEVANCE_LABEL_IRRELEVANT, "irrelevant"],
]);
/**
 * What a mention stored without a relevance score (before scoring existed) counts as wherever relevance
 * filters: neither kept nor dropped by a middling bound.
 */
export const UNSCORED_RELEVANCE = { score: 0.5, label: "uncertain" } as const;

/** A project's LinkedIn connection statuses. */
export const LINKEDIN_STATUSES = ["disconnected", "pending_page", "connected", "reauthorization_required"] as const;
export type LinkedinStatus = (typeof LINKEDIN_STATUSES)[number];

/** A LinkedIn connection's status on gRPC (`earshot.integration.v1.LinkedinStatus`) and its word, both ways. */
export const LINKEDIN_STATUS_WORDS: EnumWords<integrationV1.LinkedinStatus, LinkedinStatus> = enumWords([
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_DISCONNECTED, "disconnected"],
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_PENDING_PAGE, "pending_page"],
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_CONNECTED, "connected"],
  [integrationV1.LinkedinStatus.LINKEDIN_STATUS_REAUTHORIZATION_REQUIRED, "reauthorization_required"],
]);
