import { compileMatcher, keywordFromEvent, type MatchablePost, type TermMatch } from "@earshot/contracts/matcher";
import { SOURCES, type Source } from "@earshot/platform/core";
import type { CollectedPost, CollectKeyword } from "../collectors/collector";
import { ProviderRateLimited, QuotaExhausted } from "../collectors/provider-errors";
import { accessProject } from "./access";
import type { Caller, IntegrationDeps } from "./deps";
import { firstSearchLookbackMs } from "./first-search";

// preview_keyword's live sample: what a keyword definition would find on the sources right now. Each
// source the definition names, the project enables and this instance can search runs its collector once
// in sample mode (one page per query, no YouTube comments, nothing taken from the quota ledger), in
// parallel, under one deadline. The posts are matched with the ingestion matcher, like the stored part of
// the preview; those the definition would not keep (excluded terms, filters, a search broader than the
// matcher) are counted as dropped and left out. Nothing is stored or emitted and no cursor moves: the
// pollers find these posts again on their own schedule.

/** Sample posts shown per source and in all, the newest first. */
export const SAMPLE_PER_SOURCE = 10;
export const SAMPLE_TOTAL = 20;
/** The whole sample's deadline: a source still searching then is reported unavailable (timeout). */
export const SAMPLE_DEADLINE_MS = 10_000;

/** A definition as preview_keyword merged it (unsaved). */
export type SampleDefinition = Omit<CollectKeyword, "id"> & { groupId?: string };

export interface SamplePost {
  post: CollectedPost;
  matches: TermMatch[];
}

export type SampleStatus = "ok" | "unavailable" | "skipped";

export interface SourceSample {
  source: Source;
  status: SampleStatus;
  /** Why unavailable or skipped; empty when ok. */
  reason: string;
  found: number;
  matched: number;
  dropped: number;
  posts: SamplePost[];
  simulated: boolean;
}

const SAMPLE_KEYWORD_ID = "kw_preview";

const matchableOf = (p: CollectedPost): MatchablePost => ({
  source: p.source,
  text: p.text,
  title: p.title,
  lang: p.lang,
  author: { id: p.author.id, handle: p.author.handle, name: p.author.name, followers: p.author.followers },
  url: p.url,
  subreddit: p.subreddit,
  channelId: p.channelId,
  channelHandle: p.channelHandle,
});

class SampleTimeout extends Error {}

const reasonOf = (err: unknown): string => {
  if (err instanceof SampleTimeout || (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError"))) return "timeout";
  if (err instanceof ProviderRateLimited) return `rate limited until ${err.retryAt.toISOString()}`;
  if (err instanceof QuotaExhausted) return `quota spent until ${err.resetAt.toISOString()}`;
  return `error: ${err instanceof Error ? err.message : String(err)}`;
};

/** Trims the per-source samples to SAMPLE_TOTAL, one post at a time from the source showing the most. */
const capTotal = (samples: SourceSample[]): void => {
  let total = samples.reduce((n, s) => n + s.posts.length, 0);
  while (total > SAMPLE_TOTAL) {
    const biggest = samples.reduce((a, b) => (b.posts.length > a.posts.length ? b : a));
    biggest.posts.pop();
    total -= 1;
  }
};

export const sampleSearch = async (
  deps: IntegrationDeps,
  caller: Caller,
  projectId: string,
  definition: SampleDefinition,
  /** Tests shorten the deadline rather than wait 10 s for a source that never answers. */
  options: { deadlineMs?: number } = {},
): Promise<SourceSample[]> => {
  const project = (await accessProject(deps, caller, projectId, "viewer")).state;
  const pollers = await deps.collections.pollers.find({ projectId });
  const now = deps.clock.now();
  const keyword: CollectKeyword = { id: SAMPLE_KEYWORD_ID, ...definition };
  const matcher = compileMatcher([
    keywordFromEvent({
      keywordId: SAMPLE_KEYWORD_ID,
      groupId: definition.groupId ?? "",
      value: definition.value,
      sources: definition.sources,
      aliases: definition.aliases,
      excludedTerms: definition.excludedTerms,
      filters: definition.filters,
      caseSensitive: definition.caseSensitive,
      active: true,
    }),
  ]);
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new SampleTimeout());
    }, options.deadlineMs ?? SAMPLE_DEADLINE_MS);
  });
  deadline.catch(() => undefined);

  const one = async (source: Source): Promise<SourceSample> => {
    const collector = deps.collectors[source];
    const base: SourceSample = { source, status: "skipped", reason: "", found: 0, matched: 0, dropped: 0, posts: [], simulated: deps.simulated.has(source) };
    if (!definition.sources.includes(source)) return { ...base, reason: "not a source of the definition" };
    if (!project?.enabledSources.includes(source)) return { ...base, reason: "not enabled for the project" };
    // LinkedIn reads the Page's notifications, whatever the keywords; its syncs are metered per workspace.
    if (!collector.searchesKeywords) return { ...base, reason: "not searched by keyword" };
    if (!collector.configured) return { ...base, status: "unavailable", reason: "no credentials" };
    // A poller the provider told to wait is not overruled by a preview.
    const backoff = pollers.find((p) => p.source === source)?.backoffUntil;
    if (backoff && backoff > now) return { ...base, status: "unavailable", reason: `rate limited until ${backoff.toISOString()}` };
    try {
      const outcome = await Promise.race([
        collector.poll({ projectId, keywords: [keyword], cursor: undefined, now, signal: controller.signal, lookbackMs: firstSearchLookbackMs(deps), sample: true }),
        deadline,
      ]);
      const kept: SamplePost[] = [];
      for (const post of outcome.posts) {
        const hit = matcher.match(matchableOf(post))[0];
        if (hit) kept.push({ post, matches: hit.matches });
      }
      kept.sort((a, b) => Date.parse(b.post.publishedAt) - Date.parse(a.post.publishedAt));
      // A YouTube budget the pollers have spent ends the search before it starts: nothing found, a backoff.
      if (outcome.posts.length === 0 && outcome.backoffUntil) return { ...base, status: "unavailable", reason: `quota spent until ${outcome.backoffUntil.toISOString()}` };
      return { ...base, status: "ok", found: outcome.posts.length, matched: kept.length, dropped: outcome.posts.length - kept.length, posts: kept.slice(0, SAMPLE_PER_SOURCE) };
    } catch (err) {
      deps.logger.warn({ source, projectId, err: err instanceof Error ? err.message : String(err) }, "keyword preview: live sample search failed");
      // Past the deadline whatever the collector threw is the abort's doing.
      return { ...base, status: "unavailable", reason: controller.signal.aborted ? "timeout" : reasonOf(err) };
    }
  };

  try {
    const samples = await Promise.all(SOURCES.map(one));
    capTotal(samples);
    return samples;
  } finally {
    clearTimeout(timer);
  }
};
