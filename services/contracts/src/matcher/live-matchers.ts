import { compileMatcher } from "./compile-matcher";
import type { KeywordMatcher, MatchSource, MatcherKeyword } from "./types";

// The matchers of many projects, kept current by the keyword service's events and compiled lazily: a
// change marks its project, and the next post of that project compiles once; posts never compile. This
// is what a service matching posts (the mention service) holds; it loads each project once from
// ListCollectableKeywords and then applies `keyword.*` events in order (they are keyed by project).

/**
 * A keyword's state as LiveMatchers tracks it: plain data, so the matcher keeps no dependency. The data
 * of a `keyword.*` event, decoded with its message (KeywordChanged, `@earshot/keyword/events`), is one.
 */
export interface LiveKeyword {
  keywordId: string;
  projectId: string;
  groupId: string;
  value: string;
  sources: readonly string[];
  aliases?: readonly string[];
  excludedTerms?: readonly string[];
  filters?: MatcherKeyword["filters"];
  caseSensitive?: boolean;
  active?: boolean;
  /** ISO 8601; orders one keyword's states. */
  updatedAt?: string;
}

const SOURCES = new Set<string>(["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"]);

/** The matcher's view of a keyword state (empty filter lists mean no filter). */
export const keywordFromEvent = (d: Omit<LiveKeyword, "projectId">): MatcherKeyword => {
  const f = d.filters ?? {};
  const filters: MatcherKeyword["filters"] = {};
  if (f.languages?.length) filters.languages = f.languages;
  if (f.minFollowers !== undefined) filters.minFollowers = f.minFollowers;
  if (f.excludeAuthors?.length) filters.excludeAuthors = f.excludeAuthors;
  if (f.subreddits?.length) filters.subreddits = f.subreddits;
  if (f.youtubeChannels?.length) filters.youtubeChannels = f.youtubeChannels;
  if (f.allOf?.length) filters.allOf = f.allOf;
  return {
    id: d.keywordId,
    groupId: d.groupId,
    value: d.value,
    aliases: d.aliases ?? [],
    excludedTerms: d.excludedTerms ?? [],
    caseSensitive: d.caseSensitive ?? false,
    sources: d.sources.filter((s): s is MatchSource => SOURCES.has(s)),
    filters,
  };
};

interface ProjectEntry {
  keywords: Map<string, MatcherKeyword>;
  /** The latest `updatedAt` applied per keyword, so an older state delivered late never wins. */
  versions: Map<string, string>;
  matcher?: KeywordMatcher;
}

type PendingEvent = [type: string, data: LiveKeyword];

export class LiveMatchers {
  private readonly projects = new Map<string, ProjectEntry>();
  /** Projects being loaded: the events that arrive meanwhile, applied once the load is in. */
  private readonly loading = new Map<string, { events: PendingEvent[]; done: Promise<void> }>();
  private compileCount = 0;

  /** Compiles so far: one per project after each change that a post then needed. */
  get compiles(): number {
    return this.compileCount;
  }

  /** Whether the project's keywords are loaded (else load them before matching its posts). */
  has(projectId: string): boolean {
    return this.projects.has(projectId);
  }

  /** Sets a project's active keywords, as loaded from the keyword service. */
  load(projectId: string, keywords: readonly MatcherKeyword[]): void {
    this.projects.set(projectId, { keywords: new Map(keywords.map((k) => [k.id, k])), versions: new Map() });
  }

  /**
   * Loads a project once with `fetch` (however many posts ask at the same time). Events that arrive while
   * it fetches are applied after the fetched keywords, so a change committed during the load is not lost.
   */
  async ensure(projectId: string, fetch: () => Promise<readonly MatcherKeyword[]>): Promise<void> {
    if (this.projects.has(projectId)) return;
    const pending = this.loading.get(projectId);
    if (pending) return pending.done;
    const events: PendingEvent[] = [];
    const done = (async () => {
      let keywords: readonly MatcherKeyword[];
      try {
        keywords = await fetch();
      } finally {
        this.loading.delete(projectId);
      }
      this.load(projectId, keywords);
      for (const [type, data] of events) this.apply(type, data);
    })();
    this.loading.set(projectId, { events, done });
    return done;
  }

  /** Forgets a project (paused, archived, or to be loaded again). */
  drop(projectId: string): void {
    this.projects.delete(projectId);
  }

  /** Applies one keyword event; events of projects not loaded are skipped (their load reads the result). */
  apply(type: string, data: LiveKeyword): void {
    if (!type.startsWith("keyword.") || !data.projectId || !data.keywordId) return;
    const pending = this.loading.get(data.projectId);
    if (pending) {
      pending.events.push([type, data]);
      return;
    }
    const entry = this.projects.get(data.projectId);
    if (!entry) return;
    if (data.updatedAt) {
      const seen = entry.versions.get(data.keywordId);
      if (seen !== undefined && seen > data.updatedAt) return;
      entry.versions.set(data.keywordId, data.updatedAt);
    }
    if (data.active && type !== "keyword.deactivated") entry.keywords.set(data.keywordId, keywordFromEvent(data));
    else entry.keywords.delete(data.keywordId);
    entry.matcher = undefined;
  }

  /** The project's matcher, compiled now only if its keywords changed since the last one; undefined when not loaded. */
  matcherFor(projectId: string): KeywordMatcher | undefined {
    const entry = this.projects.get(projectId);
    if (!entry) return undefined;
    if (!entry.matcher) {
      entry.matcher = compileMatcher([...entry.keywords.values()]);
      this.compileCount += 1;
    }
    return entry.matcher;
  }
}
