import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { ProjectCopyDoc, Source } from "@earshot/platform/core";
import type { MentionFilterInput, MentionStatus, SentimentLabel } from "./fields";

// The mention service's documents. Mentions are written by ingestion and changed only by triage; the
// replicas (projects, keywords, groups) are what the keyword and project services' events said.

export interface AuthorDoc {
  id: string;
  handle: string;
  name: string;
  url?: string;
  followers?: number;
}

export interface TermMatchDoc {
  keywordId: string;
  term: string;
  field: "title" | "text";
  start: number;
  end: number;
}

export interface TriageChangeDoc {
  /** feedback: from/to are `relevant`, `irrelevant`, or empty while unrated. */
  field: "status" | "categoryId" | "feedback";
  from: string;
  to: string;
  byUserId: string;
  at: Date;
}

export interface MentionDoc extends Doc {
  projectId: string;
  workspaceId: string;
  source: Source;
  sourceId: string;
  /** `<projectId>|<source>|<sourceId>`, unique: one mention per post and project however often it arrives. */
  postKey: string;
  url: string;
  title?: string;
  text: string;
  author: AuthorDoc;
  /** The author's handle folded (lower case, no leading @), for the author filter. */
  authorKey: string;
  publishedAt: Date;
  lang?: string;
  parentId?: string;
  /** What the keyword filters read besides the post's text and author, kept so a keyword preview judges as ingestion did. */
  subreddit?: string;
  channelId?: string;
  channelHandle?: string;
  metrics?: { likes: number; replies: number; shares: number; views: number };
  keywordIds: string[];
  groupIds: string[];
  matches: TermMatchDoc[];
  sentiment: { label: SentimentLabel; score: number; method: "lexicon" };
  /** Folded distinct words of title and text, for the `q` filter (every word must be present). */
  words: string[];
  status: MentionStatus;
  /** Absent while uncategorized. */
  categoryId?: string;
  collectedAt: Date;
  matchedAt: Date;
  updatedAt: Date;
  /** Status, category and feedback changes, oldest first. */
  history: TriageChangeDoc[];
  /** The project's relevance model's score (domain/relevance/); absent on mentions stored before scoring. */
  relevance?: RelevanceDoc;
  /** The latest rating by a person (domain/feedback.ts); absent while unrated. */
  feedback?: FeedbackDoc;
  /**
   * The project's change sequence at the mention's latest change (domain/change-sequence.ts): the change
   * feed reads a project's mentions in this order. Absent only on mentions stored before the feed existed,
   * until the one-time numbering at start reaches them.
   */
  changeSeq?: number;
  /** The sequence at the mention's creation (or its first numbering): a reader whose cursor is before it meets it as `created`. */
  createdSeq?: number;
  /**
   * The story the mention belongs to (domain/stories/): `sto_` and its first mention's id without `men_`.
   * Absent on mentions stored before stories existed.
   */
  storyId?: string;
  /** True on a story's first mention, false on the others: collapse=story leaves the false ones out. */
  storyLead?: boolean;
  /** A read's count of the story's mentions (domain/stories/story-sizes.ts), never stored. */
  storySize?: number;
}

export interface RelevanceDoc {
  score: number;
  label: "relevant" | "uncertain" | "irrelevant";
  reasons: Array<{ feature: string; weight: number }>;
  model: string;
}

export interface FeedbackDoc {
  relevant: boolean;
  reason?: string;
  byUserId: string;
  at: Date;
}

/**
 * A project's relevance model (domain/relevance/model.ts): the counts its ratings taught, replaced at its
 * version with every rating, in the same commit as the rated mention. `_id` is the project id.
 */
export interface RelevanceModelDoc extends Doc {
  workspaceId: string;
  /** Moves on with every rating: part of the model version scores carry. */
  revision: number;
  relevant: number;
  irrelevant: number;
  /** Hashed feature -> [relevant, irrelevant] rated mentions that had it. */
  counts: Record<string, [number, number]>;
  /** Soft counts the project's unrated mentions teach (relevance/semi-supervised.ts), set by the rescore pass. */
  unrated?: { relevant: number; irrelevant: number; counts: Record<string, [number, number]> };
  /** Moves on each time the rescore pass stores new `unrated` counts: part of the model version. */
  unratedRevision?: number;
  updatedAt: Date;
}

/**
 * A project's change sequence: the number of its last committed mention change. Replaced at its version in
 * the same commit as the changes it numbers, so of two racing commits one fails and numbers again: the
 * numbers become visible in order, on every store and across replicas.
 */
export interface ChangeSequenceDoc extends Doc {
  seq: number;
  /**
   * Per UTC day with a change, the sequence before the day's first change, oldest first (only the days the
   * feed's retention covers): where the oldest cursor still served begins.
   */
  days: Array<{ day: string; seq: number }>;
  updatedAt: Date;
}

export interface CategoryDoc extends Doc {
  projectId: string;
  workspaceId: string;
  name: string;
  description: string;
  icon: string;
  order: number;
  /** `<order, 7 digits>:<_id>`: lists page by it. */
  sortKey: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface MentionViewDoc extends Doc {
  projectId: string;
  workspaceId: string;
  name: string;
  filters: MentionFilterInput;
  order: number;
  sortKey: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A project's copy (the platform's project-copy rules), with what the mention reads need of it. */
export interface ProjectStateDoc extends ProjectCopyDoc {
  timezone: string;
  /** The project's description: context for its relevance prior (domain/relevance/prior.ts). */
  description?: string;
  /**
   * Moves on with every keyword event written to the keyword copies of the project, so each process
   * notices changes it did not write itself and reloads its matcher (domain/ingest-matchers.ts).
   */
  keywordsRevision?: number;
  /** The public dashboard's share id, once the project service said it has one (project.dashboard_changed). */
  shareId?: string;
  /** Whether that dashboard is served: the public reads answer only then. */
  dashboardServed?: boolean;
  /** The dashboard's relevance bound (project.dashboard_changed); 0 or absent: none. */
  dashboardMinRelevance?: number;
  /**
   * Set once the project's mentions were checked against its keywords' groups (domain/regroup.ts): mentions
   * stored before groups followed keywords kept the groups they were collected in.
   */
  groupsChecked?: boolean;
  /** Set once the project's mentions stored before the change feed existed were numbered in its sequence (domain/change-backfill.ts). */
  changesNumbered?: boolean;
}

/** A keyword as the keyword service's events describe it (the matcher's input). */
export interface KeywordCopyDoc extends Doc {
  projectId: string;
  groupId: string;
  value: string;
  sources: Source[];
  aliases: string[];
  excludedTerms: string[];
  filters: Record<string, unknown>;
  caseSensitive: boolean;
  active: boolean;
  updatedAt: Date;
}

/** A keyword group as the keyword service's events describe it (share of voice needs the defaults). */
export interface GroupCopyDoc extends Doc {
  projectId: string;
  name: string;
  isDefault: boolean;
  updatedAt: Date;
}

export interface MentionCollections {
  mentions: Collection<MentionDoc>;
  categories: Collection<CategoryDoc>;
  views: Collection<MentionViewDoc>;
  projects: Collection<ProjectStateDoc>;
  keywords: Collection<KeywordCopyDoc>;
  groups: Collection<GroupCopyDoc>;
  sequences: Collection<ChangeSequenceDoc>;
  relevanceModels: Collection<RelevanceModelDoc>;
}

export const MENTIONS = "mentions";
export const CATEGORIES = "categories";
export const MENTION_VIEWS = "mention_views";
export const PROJECTS = "projects";
export const KEYWORDS = "keywords";
export const GROUPS = "keyword_groups";
export const CHANGE_SEQUENCES = "change_sequences";
export const RELEVANCE_MODELS = "relevance_models";

/** The fields list_mentions filters on, each indexed as (projectId, field, publishedAt). */
export const MENTION_FILTER_INDEXES = ["status", "source", "sentiment.label", "categoryId", "keywordIds", "groupIds", "authorKey", "author.id", "words"] as const;

export const orderSortKey = (order: number, id: string) => `${String(order).padStart(7, "0")}:${id}`;

export const openMentionCollections = async (store: DocumentStore): Promise<MentionCollections> => {
  const mentions = store.collection<MentionDoc>(MENTIONS);
  const categories = store.collection<CategoryDoc>(CATEGORIES);
  const views = store.collection<MentionViewDoc>(MENTION_VIEWS);
  const keywords = store.collection<KeywordCopyDoc>(KEYWORDS);
  const groups = store.collection<GroupCopyDoc>(GROUPS);
  await mentions.ensureIndex({ fields: { postKey: 1 }, unique: true });
  // Lists page newest first by (publishedAt, _id): with _id in the index, MongoDB serves the whole sort
  // from it (no in-memory sort of every match).
  await mentions.ensureIndex({ fields: { projectId: 1, publishedAt: -1, _id: -1 } });
  // One index per list filter, in the same order after the filter's field: a filtered page walks only the
  // matching mentions, newest first, and analytics counts a period's mentions from an index range. An
  // array field (keywordIds, groupIds, words) is a multikey index on MongoDB; the embedded store keeps a
  // side table of one row per element for it, except for `words`, declared a text index: a dozen words per
  // mention would cost a dozen rows per write, so it keeps a full-text index of them instead.
  for (const field of MENTION_FILTER_INDEXES) {
    await mentions.ensureIndex({ fields: { projectId: 1, [field]: 1, publishedAt: -1, _id: -1 }, ...(field === "words" ? { text: "words" } : {}) });
  }
  // list_mentions sort=relevance walks this one in order (domain/relevance-order.ts).
  await mentions.ensureIndex({ fields: { projectId: 1, "relevance.score": -1, publishedAt: -1, _id: -1 } });
  await mentions.ensureIndex({ fields: { workspaceId: 1, matchedAt: 1 } });
  // The change feed: a project's mentions in commit order, read from a cursor's position on.
  await mentions.ensureIndex({ fields: { projectId: 1, changeSeq: 1 } });
  await mentions.ensureIndex({ fields: { categoryId: 1 } });
  // A page's story sizes are counted from this one.
  await mentions.ensureIndex({ fields: { projectId: 1, storyId: 1 } });
  await categories.ensureIndex({ fields: { projectId: 1, sortKey: 1 } });
  await views.ensureIndex({ fields: { projectId: 1, sortKey: 1 } });
  await keywords.ensureIndex({ fields: { projectId: 1, active: 1 } });
  await groups.ensureIndex({ fields: { projectId: 1 } });
  const projects = store.collection<ProjectStateDoc>(PROJECTS);
  await projects.ensureIndex({ fields: { shareId: 1 }, unique: true, sparse: true });
  return { mentions, categories, views, projects, keywords, groups, sequences: store.collection<ChangeSequenceDoc>(CHANGE_SEQUENCES),
    relevanceModels: store.collection<RelevanceModelDoc>(RELEVANCE_MODELS),
  };
};
