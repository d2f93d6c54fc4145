import type { Collection, Doc, DocumentStore, ProjectCopyDoc } from "@earshot/platform";

// The digest service's own copies of what it needs to send (nothing is read back from another service at
// send time) and its records of what it sent.

/** A project as the project service's events tell it. */
/** A project's copy (the platform's project-copy rules), with its name and zone. */
export interface ProjectDoc extends ProjectCopyDoc {
  name: string;
  digestTimezone: string;
}

/** A workspace's owner, from the account service's events: whom every alert of the workspace goes to. */
export interface OwnerDoc extends Doc {
  userId: string;
  email: string;
  /** False once the account is deactivated: it gets nothing until reactivated. */
  active: boolean;
  updatedAt: Date;
}

/** An alert rule as the alert service's events carry it (`_id` is the rule's id). */
export interface RuleDoc extends Doc {
  projectId: string;
  workspaceId: string;
  name: string;
  active: boolean;
  digest: { enabled: boolean; hour: number };
  instant: boolean;
  /** minRelevance absent: no bound. */
  filters: { keywordIds: string[]; groupIds: string[]; sources: string[]; sentiments: string[]; minRelevance?: number };
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A mention of the last days, as `mention.created` carried it, with what an email shows of it. */
export interface MentionDoc extends Doc {
  projectId: string;
  source: string;
  url: string;
  title?: string;
  text: string;
  authorHandle: string;
  authorName?: string;
  keywordIds: string[];
  groupIds: string[];
  /** The names of its keywords, for the counts per keyword. */
  keywords: Array<{ keywordId: string; value: string }>;
  sentiment: string;
  /** The relevance score the event carried (absent: stored before scoring; counts as 0.5). Not updated on rescoring. */
  relevanceScore?: number;
  /** The story the event said the mention belongs to (absent: stored before stories; a story of its own). */
  storyId?: string;
  publishedAt: Date;
  matchedAt: Date;
  /** When this service heard of it; expired (TTL) after the longest window an email looks back. */
  receivedAt: Date;
}

/** A keyword's group as the keyword service's events tell it (`_id` is the keyword's id): mentions' groups follow it. */
export interface KeywordGroupOfDoc extends Doc {
  projectId: string;
  groupId: string;
  updatedAt: Date;
}

/** A mention waiting for the next instant email of a rule: `<ruleId>:<mentionId>`. */
export interface PendingDoc extends Doc {
  ruleId: string;
  mentionId: string;
  at: Date;
}

/** The instant-alert pace of a rule: when its last email was claimed (`_id` is the rule's id). */
export interface InstantStateDoc extends Doc {
  lastSentAt: Date;
}

/**
 * The claim of one rule's digest for one local date, `<ruleId>:<localDate>`: unique, so one replica sends
 * it. `claimed` and not `sent` after the lease means the claimer died before sending: it is sent again.
 */
export interface DigestSendDoc extends Doc {
  ruleId: string;
  projectId: string;
  localDate: string;
  status: "claimed" | "sent" | "skipped";
  claimedAt: Date;
  doneAt?: Date;
  mentionCount?: number;
}

export interface DigestCollections {
  projects: Collection<ProjectDoc>;
  owners: Collection<OwnerDoc>;
  rules: Collection<RuleDoc>;
  mentions: Collection<MentionDoc>;
  keywords: Collection<KeywordGroupOfDoc>;
  pending: Collection<PendingDoc>;
  instant: Collection<InstantStateDoc>;
  sends: Collection<DigestSendDoc>;
}

/** Mentions are kept 3 days: the digest looks back 24 hours from a send that may be late the same day. */
const MENTION_TTL_SECONDS = 3 * 24 * 3600;
/** Send records are kept 60 days: far longer than any day a late or repeated claim could be about. */
const SEND_TTL_SECONDS = 60 * 24 * 3600;

export const openDigestCollections = async (store: DocumentStore): Promise<DigestCollections> => {
  const c: DigestCollections = {
    projects: store.collection<ProjectDoc>("projects"),
    owners: store.collection<OwnerDoc>("owners"),
    rules: store.collection<RuleDoc>("rules"),
    mentions: store.collection<MentionDoc>("mentions"),
    keywords: store.collection<KeywordGroupOfDoc>("keywords"),
    pending: store.collection<PendingDoc>("instant_pending"),
    instant: store.collection<InstantStateDoc>("instant_state"),
    sends: store.collection<DigestSendDoc>("digest_sends"),
  };
  await c.rules.ensureIndex({ fields: { projectId: 1 } });
  await c.mentions.ensureIndex({ fields: { projectId: 1, matchedAt: 1 } });
  await c.mentions.ensureIndex({ fields: { receivedAt: 1 }, expireAfterSeconds: MENTION_TTL_SECONDS });
  await c.pending.ensureIndex({ fields: { ruleId: 1, at: 1 } });
  await c.sends.ensureIndex({ fields: { claimedAt: 1 }, expireAfterSeconds: SEND_TTL_SECONDS });
  return c;
};
