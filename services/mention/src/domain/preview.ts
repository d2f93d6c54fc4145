import { compileMatcher, type KeywordMatcher, keywordFromEvent, type MatchablePost, type TermMatch } from "@earshot/contracts/matcher";
import { type FieldError, validationFailed } from "@earshot/platform/core";
import type { MentionDoc } from "../store";
import { accessProject } from "./access";
import type { Caller, MentionDeps } from "./deps";

// A keyword definition run over a project's stored mentions of a period, to show what saving it would do,
// saving nothing. The definition is compiled exactly as a keyword event's is (keywordFromEvent, then the
// shared matcher), so what the preview matches is what ingestion would match in the same posts. Stored
// mentions are the only posts kept (a post no keyword matched was never stored): the preview sees what
// the project's other keywords brought in, not the whole of a platform.

/** The longest period a preview reads: a month of mentions is what a person judges a rule by. */
export const MAX_PREVIEW_DAYS = 30;
export const DEFAULT_PREVIEW_DAYS = 7;
/** Mentions read at most per preview, newest first: bounds the cost of a busy project's month. */
export const MAX_PREVIEW_SCANNED = 50_000;
/** Mentions returned per list. */
export const PREVIEW_SAMPLE_SIZE = 20;
const PAGE = 1_000;
const DAY_MS = 86_400_000;

/** The id a definition not saved yet matches under; never shown (the API answers null). */
export const UNSAVED_KEYWORD_ID = "kw_preview";

export interface PreviewDefinition {
  value: string;
  aliases: string[];
  excludedTerms: string[];
  caseSensitive: boolean;
  sources: string[];
  filters: {
    languages?: string[];
    minFollowers?: number;
    excludeAuthors?: string[];
    subreddits?: string[];
    youtubeChannels?: string[];
    allOf?: string[];
  };
  groupId?: string;
}

export interface PreviewInput {
  projectId: string;
  definition: PreviewDefinition;
  /** The keyword the definition would replace; absent for a new one. */
  keywordId?: string;
  since?: Date;
  until?: Date;
  sampleSize?: number;
  /** At most this many mentions read (MAX_PREVIEW_SCANNED unless lower). */
  maxScanned?: number;
}

export interface PreviewHit {
  mention: MentionDoc;
  matches: TermMatch[];
}

export interface PreviewList {
  count: number;
  mentions: PreviewHit[];
}

export interface PreviewResult {
  since: Date;
  until: Date;
  wouldMatch: PreviewList;
  /** Only for an existing keyword. */
  wouldNoLongerMatch?: PreviewList;
  alreadyMatching: number;
  scanned: number;
  truncated: boolean;
  /** When truncated: the publishedAt of the oldest mention read (the period's newer part was read). */
  scannedFrom?: Date;
}

/** The period: until defaults to now, since to DEFAULT_PREVIEW_DAYS before until; at most MAX_PREVIEW_DAYS long. */
export const previewPeriod = (now: Date, since?: Date, until?: Date): { since: Date; until: Date } => {
  const end = until ?? now;
  const start = since ?? new Date(end.getTime() - DEFAULT_PREVIEW_DAYS * DAY_MS);
  const errors: FieldError[] = [];
  // Worded as the analytics and list filters word it: on until when it was given, else on since.
  if (start.getTime() >= end.getTime()) errors.push(until ? { path: "until", message: "must be after since" } : { path: "since", message: "must be before until" });
  else if (end.getTime() - start.getTime() > MAX_PREVIEW_DAYS * DAY_MS) {
    errors.push({ path: "since", message: `must be at most ${MAX_PREVIEW_DAYS} days before until` });
    errors.push({ path: "until", message: `must be at most ${MAX_PREVIEW_DAYS} days after since` });
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { since: start, until: end };
};

/** The stored mention as the matcher reads a post: every field a keyword or its filters look at. */
const matchableOf = (m: MentionDoc): MatchablePost => ({
  source: m.source as MatchablePost["source"],
  text: m.text,
  title: m.title,
  lang: m.lang,
  author: { id: m.author.id, handle: m.author.handle, name: m.author.name, followers: m.author.followers },
  url: m.url,
  subreddit: m.subreddit,
  channelId: m.channelId,
  channelHandle: m.channelHandle,
});

const compileDefinition = (keywordId: string, d: PreviewDefinition): KeywordMatcher =>
  compileMatcher([
    keywordFromEvent({
      keywordId,
      groupId: d.groupId ?? "",
      value: d.value,
      sources: d.sources,
      aliases: d.aliases,
      excludedTerms: d.excludedTerms,
      filters: d.filters,
      caseSensitive: d.caseSensitive,
      active: true,
    }),
  ]);

const emptyList = (): PreviewList => ({ count: 0, mentions: [] });

const add = (list: PreviewList, hit: PreviewHit, size: number): void => {
  list.count += 1;
  if (list.mentions.length < size) list.mentions.push(hit);
};

export const previewKeyword = async (deps: MentionDeps, caller: Caller, input: PreviewInput): Promise<PreviewResult> => {
  const period = previewPeriod(deps.clock.now(), input.since, input.until);
  await accessProject(deps, caller, input.projectId, "viewer");
  const size = Math.min(Math.max(input.sampleSize ?? PREVIEW_SAMPLE_SIZE, 0), PREVIEW_SAMPLE_SIZE);
  const keywordId = input.keywordId || undefined;
  const matcher = compileDefinition(keywordId ?? UNSAVED_KEYWORD_ID, input.definition);
  const result: PreviewResult = { ...period, wouldMatch: emptyList(), alreadyMatching: 0, scanned: 0, truncated: false };
  if (keywordId) result.wouldNoLongerMatch = emptyList();

  const maxScanned = Math.min(input.maxScanned ?? MAX_PREVIEW_SCANNED, MAX_PREVIEW_SCANNED);
  const query = { projectId: input.projectId, publishedAt: { $gte: period.since, $lt: period.until } };
  let cursor: string | null = null;
  do {
    const page = await deps.collections.mentions.findPage(query, { limit: Math.min(PAGE, maxScanned - result.scanned), cursor, sortField: "publishedAt", direction: -1 });
    for (const mention of page.items) {
      result.scanned += 1;
      const hit = matcher.match(matchableOf(mention))[0];
      const attributed = keywordId !== undefined && mention.keywordIds.includes(keywordId);
      if (hit) {
        add(result.wouldMatch, { mention, matches: hit.matches }, size);
        if (attributed) result.alreadyMatching += 1;
      } else if (attributed) {
        add(result.wouldNoLongerMatch as PreviewList, { mention, matches: [] }, size);
      }
    }
    cursor = page.nextCursor;
    if (cursor && result.scanned >= maxScanned) {
      result.truncated = true;
      result.scannedFrom = page.items[page.items.length - 1]?.publishedAt;
      break;
    }
  } while (cursor);
  return result;
};
