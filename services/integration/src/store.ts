import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { ProjectCopyDoc as PlatformProjectCopy, Source } from "@earshot/platform/core";
import type { CollectKeyword } from "./collectors/collector";
import type { LinkedinStatus } from "./fields";

// The integration service's documents: copies of the projects and keywords it collects for (from the
// project and keyword services' events), one poller per (project, source) with its lease, cursor and
// health, the first searches new or changed keywords wait for, poll records for the last day's figures,
// the shared daily quotas, and LinkedIn connections.

/** A project as the project service's events describe it. Archived is final. */
/** A project's copy (the platform's project-copy rules), with what the pollers need of it. */
export interface ProjectCopyDoc extends PlatformProjectCopy {
  ownerId: string;
  enabledSources: Source[];
}

/** A keyword as the keyword service's events describe it; `active` false once deactivated. */
export interface KeywordCopyDoc extends Doc, Omit<CollectKeyword, "id"> {
  projectId: string;
  active: boolean;
  updatedAt: Date;
}

/** `<projectId>:<source>`. */
export const pollerId = (projectId: string, source: Source): string => `${projectId}:${source}`;

export interface PollerDoc extends Doc {
  projectId: string;
  source: Source;
  /** Whether the project, the source and a keyword on it all say "collect" (reconciled from the copies). */
  enabled: boolean;
  /** The replica that holds the lease, until `leaseUntil`; a lease past its time is free to take. */
  leaseOwner?: string;
  leaseUntil?: Date;
  nextPollAt: Date;
  /** The collector's cursor (JSON), saved with each poll's emission. */
  cursor?: unknown;
  /** Source ids emitted lately, newest last (bounded): a post found again is not emitted twice. */
  recentIds: string[];
  backoffUntil?: Date;
  lastSuccessAt?: Date;
  lastError?: { at: Date; message: string; status: number };
  quotaLeft?: number;
  /** When a new or changed keyword's first search last ran on this source (domain/first-search.ts). */
  firstSearchAt?: Date;
  updatedAt: Date;
}

/**
 * A keyword waiting for its first search on one source (`<projectId>:<source>:<keywordId>`), due at
 * `dueAt` (later while the source backs off). Asked again when the keyword changes again.
 */
export interface FirstSearchDoc extends Doc {
  projectId: string;
  source: Source;
  keywordId: string;
  pollerId: string;
  requestedAt: Date;
  dueAt: Date;
}

export const firstSearchId = (projectId: string, source: Source, keywordId: string): string => `${projectId}:${source}:${keywordId}`;

/** One poll's findings, kept a day for get_source_health. */
export interface PollRecordDoc extends Doc {
  pollerId: string;
  projectId: string;
  source: Source;
  at: Date;
  found: number;
  /** collectedAt - publishedAt of each post found (ms), at most 500 kept per poll. */
  lagsMs: number[];
  expiresAt: Date;
}

/** A provider's daily budget (`<source>:<YYYY-MM-DD>`; YouTube's day is Google's, in Pacific time). */
export interface QuotaDoc extends Doc {
  source: Source;
  day: string;
  used: number;
  updatedAt: Date;
}

/** A connection's status, as the API names it (`fields.ts`). */
export type { LinkedinStatus };

export interface LinkedinPageDoc {
  organizationUrn: string;
  name: string;
}

/** A project's LinkedIn connection (`_id` = project id). Tokens are sealed (AES-256-GCM). */
export interface LinkedinConnectionDoc extends Doc {
  workspaceId: string;
  ownerId: string;
  status: LinkedinStatus;
  accessToken?: string;
  refreshToken?: string;
  tokenExpiresAt?: Date;
  /** The Pages the authorizing member administers (from organizationAcls at the callback). */
  pages: LinkedinPageDoc[];
  page?: LinkedinPageDoc;
  connectedAt?: Date;
  lastSyncAt?: Date;
  updatedAt: Date;
}

/** An authorization in flight (`_id` = SHA-256 of the state sent to LinkedIn). */
export interface LinkedinStateDoc extends Doc {
  projectId: string;
  workspaceId: string;
  userId: string;
  redirectUri: string;
  expiresAt: Date;
  usedAt?: Date;
  /** SHA-256 of the page-choice token the callback gave the browser (its form chooses the Page once). */
  pageChoiceId?: string;
  pageChosenAt?: Date;
}

/** LinkedIn syncs a workspace ran on a UTC day (`<workspaceId>:<YYYY-MM-DD>`). */
export interface LinkedinSyncDayDoc extends Doc {
  workspaceId: string;
  day: string;
  count: number;
  updatedAt: Date;
}

/**
 * A live stream read by one replica at a time (Bluesky's Jetstream: `_id` "bluesky"): who holds it and
 * until when, the cursor handed on so far (time_us), and how the stream was doing when last saved, so
 * any replica's source health can say.
 */
export interface StreamDoc extends Doc {
  leaseOwner?: string;
  leaseUntil?: Date;
  /** The last frame's time_us (microseconds since the epoch) whose posts were handed on. */
  cursorUs?: number;
  connected: boolean;
  /** When the holder last saved (its health is as of then). */
  savedAt: Date;
  lastError?: string;
  reconnects: number;
}

/** A feed a project reads (RSS or Atom): the `feeds` resource, with how its fetching goes. */
export interface FeedDoc extends Doc {
  projectId: string;
  workspaceId: string;
  url: string;
  /** The name given, or the feed's own title once read, or its host. */
  name: string;
  createdAt: Date;
  createdBy: string;
  lastFetchedAt?: Date;
  lastSuccessAt?: Date;
  lastError?: { at: Date; message: string; status: number };
  /** When the current run of failures began; unset once a fetch succeeds. */
  failingSince?: Date;
  /** When the owner was told the feed keeps failing (once per run of failures). */
  failureReportedAt?: Date;
  /** Entries handed on, in all. */
  entriesFound: number;
  /** The feed answered 429: not asked again before this (its Retry-After). */
  backoffUntil?: Date;
}

/** A workspace's owner, from the account service's user.created: whom to tell of a feed that keeps failing. */
export interface WorkspaceOwnerDoc extends Doc {
  ownerEmail: string;
}

export interface IntegrationCollections {
  projects: Collection<ProjectCopyDoc>;
  keywords: Collection<KeywordCopyDoc>;
  pollers: Collection<PollerDoc>;
  firstSearches: Collection<FirstSearchDoc>;
  pollRecords: Collection<PollRecordDoc>;
  quotas: Collection<QuotaDoc>;
  linkedin: Collection<LinkedinConnectionDoc>;
  linkedinStates: Collection<LinkedinStateDoc>;
  linkedinSyncs: Collection<LinkedinSyncDayDoc>;
  streams: Collection<StreamDoc>;
  feeds: Collection<FeedDoc>;
  workspaceOwners: Collection<WorkspaceOwnerDoc>;
}

export const PROJECTS = "projects";
export const KEYWORDS = "keywords";
export const POLLERS = "pollers";
export const FIRST_SEARCHES = "first_searches";
export const POLL_RECORDS = "poll_records";
export const QUOTAS = "quotas";
export const LINKEDIN = "linkedin_connections";
export const LINKEDIN_STATES = "linkedin_states";
export const LINKEDIN_SYNCS = "linkedin_syncs";
export const STREAMS = "streams";
export const FEEDS = "feeds";
export const WORKSPACE_OWNERS = "workspace_owners";
/** The Bluesky firehose's stream document. */
export const BLUESKY_STREAM_ID = "bluesky";

export const openIntegrationCollections = async (store: DocumentStore): Promise<IntegrationCollections> => {
  const c: IntegrationCollections = {
    projects: store.collection<ProjectCopyDoc>(PROJECTS),
    keywords: store.collection<KeywordCopyDoc>(KEYWORDS),
    pollers: store.collection<PollerDoc>(POLLERS),
    firstSearches: store.collection<FirstSearchDoc>(FIRST_SEARCHES),
    pollRecords: store.collection<PollRecordDoc>(POLL_RECORDS),
    quotas: store.collection<QuotaDoc>(QUOTAS),
    linkedin: store.collection<LinkedinConnectionDoc>(LINKEDIN),
    linkedinStates: store.collection<LinkedinStateDoc>(LINKEDIN_STATES),
    linkedinSyncs: store.collection<LinkedinSyncDayDoc>(LINKEDIN_SYNCS),
    streams: store.collection<StreamDoc>(STREAMS),
    feeds: store.collection<FeedDoc>(FEEDS),
    workspaceOwners: store.collection<WorkspaceOwnerDoc>(WORKSPACE_OWNERS),
  };
  await c.keywords.ensureIndex({ fields: { projectId: 1, active: 1 } });
  await c.pollers.ensureIndex({ fields: { enabled: 1, nextPollAt: 1 } });
  await c.pollers.ensureIndex({ fields: { projectId: 1 } });
  await c.firstSearches.ensureIndex({ fields: { dueAt: 1 } });
  await c.pollRecords.ensureIndex({ fields: { pollerId: 1, at: -1 } });
  // get_source_health reads a project's last 24 h of records: without this it scans every project's (a
  // day of 4,000 pollers at 300 s is over a million), holding the process while the polls wait.
  await c.pollRecords.ensureIndex({ fields: { projectId: 1, at: -1 } });
  await c.pollRecords.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  await c.linkedin.ensureIndex({ fields: { ownerId: 1 } });
  await c.feeds.ensureIndex({ fields: { projectId: 1, createdAt: 1 } });
  await c.linkedinStates.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  await c.linkedinStates.ensureIndex({ fields: { pageChoiceId: 1 }, sparse: true });
  return c;
};
