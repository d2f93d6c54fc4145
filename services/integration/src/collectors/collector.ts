import type { Source } from "@earshot/platform/core";

// One collector per platform behind this interface: build the platform's query for a project's keywords,
// fetch pages, map items to Posts (DESIGN.md "Post"), and hand back the cursor to resume from. The poller
// (domain/poll.ts) owns everything around it: the lease, the recent-id memory, emitting, health.

/** A keyword as collection needs it (the keyword service's events carry it whole). */
export interface CollectKeyword {
  id: string;
  value: string;
  aliases: string[];
  excludedTerms: string[];
  caseSensitive: boolean;
  sources: Source[];
  filters: {
    languages?: string[];
    minFollowers?: number;
    excludeAuthors?: string[];
    subreddits?: string[];
    youtubeChannels?: string[];
    allOf?: string[];
  };
}

/** A post as a collector finds it; the poller adds projectId and collectedAt. */
export interface CollectedPost {
  source: Source;
  sourceId: string;
  url: string;
  title?: string;
  text: string;
  author: { id: string; handle: string; name: string; url?: string; followers?: number };
  publishedAt: string;
  lang?: string;
  parentId?: string;
  metrics?: { likes: number; replies: number; shares: number; views: number };
  subreddit?: string;
  channelId?: string;
  channelHandle?: string;
}

/** A project's LinkedIn connection, for the LinkedIn collector (tokens decrypted just for the call). */
export interface LinkedinAccess {
  accessToken: string;
  organizationUrn: string;
}

export interface PollInput {
  projectId: string;
  /** The project's active keywords that include this collector's source (never empty). */
  keywords: CollectKeyword[];
  /** What the previous poll returned as `cursor` (JSON), undefined on the first poll. */
  cursor: unknown;
  now: Date;
  signal: AbortSignal;
  linkedin?: LinkedinAccess;
  /**
   * How far back a query with no cursor looks. A new or changed keyword's first search sets it to the
   * first-search window (each collector caps it at what its platform's search reaches); a regular poll
   * leaves it unset and the collector's own default applies.
   */
  lookbackMs?: number;
  /**
   * A live sample for preview_keyword, not a poll: one page per query, nothing beyond the search (no
   * YouTube comments), and no shared budget taken (the YouTube ledger is only checked). The caller keeps
   * neither the posts nor the cursor.
   */
  sample?: boolean;
}

export interface PollOutcome {
  posts: CollectedPost[];
  /** JSON-serialisable; stored with the poll's emission so a restart resumes from it. */
  cursor: unknown;
  /** Items the provider sent that could not be read (logged by the collector, skipped). */
  skipped: number;
  /** Provider quota left when the provider reports one. */
  quotaLeft?: number;
  /** When the provider says the window is used up (remaining 0): the next poll waits until then. */
  backoffUntil?: Date;
}

export interface Collector {
  readonly source: Source;
  /** Whether credentials are configured; a collector without them is never polled. */
  readonly configured: boolean;
  /**
   * Whether the platform is searched by keyword, so a new keyword has something of its own to find there
   * (its first search). LinkedIn is not: it reads the Page's notifications whatever the keywords are.
   */
  readonly searchesKeywords: boolean;
  /** What source health says of this collector as configured: a limit it runs under, a part that is off. */
  readonly notes?: readonly string[];
  /** What source health says of it as it runs (read when asked; Bluesky's live stream). */
  status?(): Promise<string[]>;
  poll(input: PollInput): Promise<PollOutcome>;
}

/** Shared quota for providers that meter per key and day (YouTube): kept in the store, across replicas. */
export interface QuotaLedger {
  /** Takes `units` of today's budget if they are left; answers what is left afterwards either way. */
  take(source: Source, units: number, now: Date): Promise<{ granted: boolean; left: number; resetAt: Date }>;
  left(source: Source, now: Date): Promise<{ left: number; resetAt: Date }>;
}
