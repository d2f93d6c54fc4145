import { collapseFilter } from "./stories/collapse";
import { withStorySizes } from "./stories/story-sizes";
import { type FieldError, notFound, type Page, pageLimit, SOURCES, validationFailed } from "@earshot/platform/core";
import { z } from "zod";
import type { MentionFilterInput, SentimentLabel } from "../fields";
import type { MentionDoc, ProjectStateDoc } from "../store";
import { bucketStarts, tallyMentions, timezoneOf } from "./analytics";
import type { MentionDeps } from "./deps";
import { mentionQuery } from "./filters";
import { parseFields } from "./input";
import { bucketStart, nextBucketStart } from "./local-time";

// A public dashboard's reads. There is no caller: the share id is the authorization, resolved through
// this service's copy of the project (project.dashboard_changed), and a dashboard that is not served
// answers exactly like an unknown share id. Only what the dashboard shows leaves: no ids, statuses,
// categories, triage history, keyword exclusions or filters. Keyword groups are chosen by name, as the
// page shows them.

export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 90;
/** The top keywords the analytics name; the page shows ten. */
export const TOP_KEYWORDS = 10;
const MAX_GROUP_NAMES = 20;

export interface PublicFiltersInput {
  sources?: string[];
  groupNames?: string[];
  /** 0 or absent: DEFAULT_DAYS. */
  days?: number;
}

const filtersSchema = z
  .object({
    sources: z.array(z.enum(SOURCES, { message: `must be one of ${SOURCES.join(", ")}` })).max(SOURCES.length).optional(),
    groupNames: z.array(z.string().min(1).max(100)).max(MAX_GROUP_NAMES).optional(),
    days: z.number().int().min(1, { message: `must be 1 to ${MAX_DAYS}` }).max(MAX_DAYS, { message: `must be 1 to ${MAX_DAYS}` }).optional(),
  })
  .strict();

export interface PublicMention {
  source: MentionDoc["source"];
  url: string;
  title?: string;
  text: string;
  author: { handle: string; name: string; url?: string };
  publishedAt: Date;
  matches: Array<{ term: string; field: "title" | "text"; start: number; end: number }>;
  sentiment: SentimentLabel;
  /** The values of the keywords it matched. */
  keywords: string[];
  /** How many more mentions its story holds ("and N more"): the list shows a story once, by its first mention. */
  moreInStory: number;
}

export interface PublicAnalytics {
  /** The project's days in the period, each with its counts by source. */
  days: Array<{ start: Date; counts: Record<string, number> }>;
  bySource: Record<string, number>;
  byGroup: Array<{ name: string; count: number }>;
  byKeyword: Array<{ name: string; count: number }>;
  bySentiment: Record<string, number>;
  total: number;
  timezone: string;
}

const DAY_MS = 24 * 3_600_000;

/** The project a share id opens, when its dashboard is served; not_found "Dashboard" otherwise. */
export const resolveDashboard = async (deps: MentionDeps, shareId: string): Promise<ProjectStateDoc> => {
  const state = shareId ? await deps.collections.projects.findOne({ shareId }) : null;
  if (!state || !state.dashboardServed || state.status === "archived") throw notFound("Dashboard");
  return state;
};

interface Scope {
  state: ProjectStateDoc;
  timezone: string;
  filters: MentionFilterInput;
  /** The period: the first instant of its first day, and the end of today. */
  from: number;
  to: number;
}

/** The share id resolved and the public filters turned into the list's filters (group names into ids). */
const scopeOf = async (deps: MentionDeps, shareId: string, input: PublicFiltersInput): Promise<Scope> => {
  const given = { ...input, ...(input.days ? {} : { days: undefined }) };
  const parsed = parseFields(filtersSchema, Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)));
  const state = await resolveDashboard(deps, shareId);
  const timezone = timezoneOf(state.timezone);
  const filters: MentionFilterInput = {};
  // The project's own bound (set_public_dashboard's minRelevance), never one a visitor chooses.
  if (state.dashboardMinRelevance) filters.minRelevance = state.dashboardMinRelevance;
  if (parsed.sources?.length) filters.source = [...new Set(parsed.sources)];
  if (parsed.groupNames?.length) {
    const groups = await deps.collections.groups.find({ projectId: state._id });
    const errors: FieldError[] = [];
    const ids: string[] = [];
    parsed.groupNames.forEach((name, i) => {
      const found = groups.filter((g) => g.name === name).map((g) => g._id);
      if (found.length === 0) errors.push({ path: `groupNames.${i}`, message: "is not a keyword group of this dashboard" });
      ids.push(...found);
    });
    if (errors.length > 0) throw validationFailed(errors);
    filters.groupId = [...new Set(ids)];
  }
  const now = deps.clock.now().getTime();
  const days = parsed.days ?? DEFAULT_DAYS;
  const today = bucketStart(now, "day", timezone);
  // Noon of the first day lies inside it whatever daylight saving did in between.
  const from = bucketStart(today - (days - 1) * DAY_MS + DAY_MS / 2, "day", timezone);
  return { state, timezone, filters, from, to: nextBucketStart(today, "day", timezone) };
};

const keywordNames = async (deps: MentionDeps, projectId: string): Promise<Map<string, string>> =>
  new Map((await deps.collections.keywords.find({ projectId })).map((k) => [k._id, k.value]));

const publicMentionOf = (m: MentionDoc, names: Map<string, string>): PublicMention => ({
  source: m.source,
  url: m.url,
  ...(m.title !== undefined ? { title: m.title } : {}),
  text: m.text,
  author: { handle: m.author.handle, name: m.author.name, ...(m.author.url ? { url: m.author.url } : {}) },
  publishedAt: m.publishedAt,
  matches: m.matches.map((t) => ({ term: t.term, field: t.field, start: t.start, end: t.end })),
  sentiment: m.sentiment.label,
  keywords: [...new Set(m.keywordIds.map((id) => names.get(id)).filter((n): n is string => n !== undefined))],
  moreInStory: Math.max(0, (m.storySize ?? 1) - 1),
});

// The public cursor names no mention: it is the last shown publishedAt and how many mentions published at
// that very instant were shown already, so a dashboard URL carries no internal id. A mention arriving
// later with an older publishedAt shows up on a later page, as it should.
/** The store reads at most 1,000 a page: a page of 100 behind this many mentions of one instant. */
const MAX_SAME_INSTANT = 899;

const encodePublicCursor = (at: number, seen: number) => Buffer.from(JSON.stringify([at, seen])).toString("base64url");

const badCursor = () => validationFailed([{ path: "cursor", message: "is not a cursor this dashboard gave" }]);

const decodePublicCursor = (cursor: string): { at: number; seen: number } => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw badCursor();
  const [at, seen] = parsed as unknown[];
  if (!Number.isSafeInteger(at) || !Number.isSafeInteger(seen) || (seen as number) < 1 || (seen as number) > MAX_SAME_INSTANT) throw badCursor();
  return { at: at as number, seen: seen as number };
};

/** A page of the dashboard's mentions in the period, newest first (ties by id). */
export const listPublicMentions = async (
  deps: MentionDeps,
  shareId: string,
  input: PublicFiltersInput & { limit?: number; cursor?: string },
): Promise<Page<PublicMention>> => {
  const { limit: rawLimit, cursor, ...filterInput } = input;
  const limit = pageLimit(rawLimit);
  const after = cursor ? decodePublicCursor(cursor) : undefined;
  const scope = await scopeOf(deps, shareId, filterInput);
  const until = after ? new Date(after.at + 1).toISOString() : undefined;
  const query = {
    ...mentionQuery(scope.state._id, { ...scope.filters, since: new Date(scope.from).toISOString(), ...(until ? { until } : {}) }),
    // A visitor sees each story once, by its first mention, with how many more it holds.
    ...collapseFilter("story"),
  };
  // The store's paged read walks the (projectId, publishedAt) index and stops when the page is full; the
  // mentions of the cursor's instant already shown are read again and dropped (ties are rare and few).
  const seen = after?.seen ?? 0;
  const page = await deps.collections.mentions.findPage(query, { limit: limit + 1 + seen, cursor: null, sortField: "publishedAt", direction: -1 });
  const found = page.items.slice(seen);
  const items = found.slice(0, limit);
  const last = items[items.length - 1];
  let nextCursor: string | null = null;
  if (found.length > limit && last) {
    const at = last.publishedAt.getTime();
    const sameInstant = items.filter((m) => m.publishedAt.getTime() === at).length;
    nextCursor = encodePublicCursor(at, sameInstant + (after && after.at === at ? after.seen : 0));
  }
  const names = await keywordNames(deps, scope.state._id);
  return { items: (await withStorySizes(deps, items)).map((m) => publicMentionOf(m, names)), nextCursor };
};

const named = (totals: Map<string, number>, names: Map<string, string>, top = Infinity) =>
  [...totals]
    .flatMap(([id, count]) => {
      const name = names.get(id);
      return name === undefined ? [] : [{ name, count }];
    })
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
    .slice(0, top);

/** The dashboard's analytics for the period: per day by source, per keyword group and keyword, by sentiment. */
export const getPublicAnalytics = async (deps: MentionDeps, shareId: string, input: PublicFiltersInput): Promise<PublicAnalytics> => {
  const scope = await scopeOf(deps, shareId, input);
  const projectId = scope.state._id;
  const starts = bucketStarts(scope.from, scope.to, "day", scope.timezone);
  const { splits, total } = await tallyMentions(deps, {
    projectId,
    starts,
    from: scope.from,
    to: scope.to,
    filters: scope.filters,
    dimensions: ["source", "group", "keyword", "sentiment"],
  });
  const [bySource, byGroup, byKeyword, bySentiment] = splits as [(typeof splits)[number], (typeof splits)[number], (typeof splits)[number], (typeof splits)[number]];
  const groupNames = new Map((await deps.collections.groups.find({ projectId })).map((g) => [g._id, g.name]));
  return {
    days: starts.map((s, i) => ({ start: new Date(s), counts: Object.fromEntries(bySource.buckets[i] as Map<string, number>) })),
    bySource: Object.fromEntries(bySource.totals),
    byGroup: named(byGroup.totals, groupNames),
    byKeyword: named(byKeyword.totals, await keywordNames(deps, projectId), TOP_KEYWORDS),
    bySentiment: Object.fromEntries(bySentiment.totals),
    total,
    timezone: scope.timezone,
  };
};
