import { type FieldError, type Filter, validationFailed } from "@earshot/platform/core";
import { z } from "zod";
import { ANALYTICS_GROUP_BY, analyticsFields, MAX_BUCKETS, type MentionFilterInput, UNCATEGORIZED } from "../fields";
import type { MentionDoc } from "../store";
import { accessProject } from "./access";
import type { Caller, MentionDeps } from "./deps";
import { checkFilters, mentionQuery } from "./filters";
import { bucketStart, type Interval, isKnownTimeZone, nextBucketStart, nominalLength } from "./local-time";
import { parseFields, required } from "./input";

// Analytics: how many of a project's mentions were published in each hour, day or week of the project's
// time zone, split by one dimension, with the share of voice between My brand and Competitors. Mentions
// are read a page at a time and only counted, so a project of any size costs memory for its buckets only.

export type GroupBy = (typeof ANALYTICS_GROUP_BY)[number];

const DEFAULT_SPAN_MS = 30 * 24 * 3_600_000;
const READ_PAGE = 1000;
/** The key of every count when nothing splits them. */
export const ALL = "all";
const MY_BRAND = "My brand";
const COMPETITORS = "Competitors";

export interface AnalyticsInput {
  projectId: string;
  /** ISO 8601; default 30 days before until. */
  since?: string;
  /** ISO 8601; default now. */
  until?: string;
  interval?: string;
  groupBy?: string;
  filters?: unknown;
}

export interface AnalyticsBucket {
  start: Date;
  counts: Record<string, number>;
}

export interface MentionAnalytics {
  buckets: AnalyticsBucket[];
  totals: Record<string, number>;
  total: number;
  shareOfVoice: { myBrand: number; competitors: number; myBrandShare: number };
  timezone: string;
  since: Date;
  until: Date;
  interval: Interval;
}

const paramsSchema = z
  .object({
    since: analyticsFields.since.optional(),
    until: analyticsFields.until.optional(),
    interval: analyticsFields.interval.optional(),
    groupBy: analyticsFields.groupBy.optional(),
  })
  .strict();

/** The keys a mention counts under: once per keyword or group it matched, once for the other dimensions. */
const keysOf = (m: MentionDoc, groupBy: GroupBy | undefined): string[] => {
  switch (groupBy) {
    case undefined:
      return [ALL];
    case "keyword":
      return [...new Set(m.keywordIds)];
    case "group":
      return [...new Set(m.groupIds)];
    case "source":
      return [m.source];
    case "sentiment":
      return [m.sentiment.label];
    case "status":
      return [m.status];
    case "category":
      return [m.categoryId ?? UNCATEGORIZED];
  }
};

/** The starts of every bucket from the one holding `since` to the last one starting before `until`. */
export const bucketStarts = (since: number, until: number, interval: Interval, timeZone: string): number[] => {
  if ((until - since) / nominalLength(interval) > MAX_BUCKETS + 1) throw tooManyBuckets();
  const starts: number[] = [];
  for (let s = bucketStart(since, interval, timeZone); s < until; s = nextBucketStart(s, interval, timeZone)) {
    starts.push(s);
    if (starts.length > MAX_BUCKETS) throw tooManyBuckets();
  }
  return starts;
};

const tooManyBuckets = () =>
  validationFailed([{ path: "interval", message: `gives more than ${MAX_BUCKETS} buckets for this range; choose a longer interval or a shorter range` }]);

/** The index of the last start at or before `t` (starts ascending, t at or after the first). */
const bucketIndex = (starts: number[], t: number): number => {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
};

/** The project's My brand and Competitors group ids, as the keyword service's events described them. */
const defaultGroups = async (deps: MentionDeps, projectId: string): Promise<{ myBrand: Set<string>; competitors: Set<string> }> => {
  const groups = await deps.collections.groups.find({ projectId, isDefault: true });
  return {
    myBrand: new Set(groups.filter((g) => g.name === MY_BRAND).map((g) => g._id)),
    competitors: new Set(groups.filter((g) => g.name === COMPETITORS).map((g) => g._id)),
  };
};

/** What one pass over a project's mentions counts: the buckets' starts and the dimensions to split by. */
export interface TallySpec {
  projectId: string;
  /** Bucket starts, ascending (bucketStarts). */
  starts: number[];
  /** The range read: from (inclusive) to (exclusive). */
  from: number;
  to: number;
  filters: MentionFilterInput;
  /** One split per entry; undefined counts all together under ALL. */
  dimensions: ReadonlyArray<GroupBy | undefined>;
}

export interface Tally {
  /** Per dimension, in the order asked: each bucket's counts and the totals over all buckets. */
  splits: Array<{ buckets: Array<Map<string, number>>; totals: Map<string, number> }>;
  total: number;
  share: { myBrand: number; competitors: number };
}

/**
 * Counts a project's mentions published in [from, to) matching the filters, once, into every dimension
 * asked: the dashboard's four charts cost one read of the mentions, as one chart does.
 */
export const tallyMentions = async (deps: MentionDeps, spec: TallySpec): Promise<Tally> => {
  const splits = spec.dimensions.map(() => ({ buckets: spec.starts.map(() => new Map<string, number>()), totals: new Map<string, number>() }));
  const share = { myBrand: 0, competitors: 0 };
  const groups = await defaultGroups(deps, spec.projectId);
  let total = 0;
  if (spec.from < spec.to) {
    const query: Filter = mentionQuery(spec.projectId, { ...spec.filters, since: new Date(spec.from).toISOString(), until: new Date(spec.to).toISOString() });
    let cursor: string | null = null;
    do {
      const page = await deps.collections.mentions.findPage(query, { limit: READ_PAGE, cursor, sortField: "publishedAt", direction: -1 });
      for (const m of page.items) {
        total += 1;
        const at = bucketIndex(spec.starts, m.publishedAt.getTime());
        spec.dimensions.forEach((groupBy, d) => {
          const split = splits[d] as Tally["splits"][number];
          const bucket = split.buckets[at] as Map<string, number>;
          for (const key of keysOf(m, groupBy)) {
            bucket.set(key, (bucket.get(key) ?? 0) + 1);
            split.totals.set(key, (split.totals.get(key) ?? 0) + 1);
          }
        });
        if (m.groupIds.some((g) => groups.myBrand.has(g))) share.myBrand += 1;
        if (m.groupIds.some((g) => groups.competitors.has(g))) share.competitors += 1;
      }
      cursor = page.nextCursor;
    } while (cursor);
  }
  return { splits, total, share };
};

/** The project's time zone as analytics counts days in it (UTC when it is missing or unknown). */
export const timezoneOf = (zone: string | undefined): string => (zone && isKnownTimeZone(zone) ? zone : "UTC");

export const getMentionAnalytics = async (deps: MentionDeps, caller: Caller, input: AnalyticsInput): Promise<MentionAnalytics> => {
  const { projectId, filters: rawFilters, ...rest } = input;
  const params = parseFields(paramsSchema, rest, required(projectId, "projectId"));
  const filters = checkFilters(rawFilters, "filters");
  const until = params.until ? Date.parse(params.until) : deps.clock.now().getTime();
  const since = params.since ? Date.parse(params.since) : until - DEFAULT_SPAN_MS;
  if (since >= until) {
    const errors: FieldError[] = [{ path: params.until ? "until" : "since", message: params.until ? "must be after since" : "must be before until" }];
    throw validationFailed(errors);
  }
  const interval: Interval = params.interval ?? "day";
  const access = await accessProject(deps, caller, projectId, "viewer");
  const timezone = timezoneOf(access.state?.timezone);
  const starts = bucketStarts(since, until, interval, timezone);

  // The range is the intersection of the analytics range and the filters' own since/until.
  const from = Math.max(since, filters.since ? Date.parse(filters.since) : -Infinity);
  const to = Math.min(until, filters.until ? Date.parse(filters.until) : Infinity);
  const { splits, total, share } = await tallyMentions(deps, { projectId, starts, from, to, filters, dimensions: [params.groupBy] });
  const [split] = splits as [Tally["splits"][number]];
  const both = share.myBrand + share.competitors;
  return {
    buckets: starts.map((s, i) => ({ start: new Date(s), counts: Object.fromEntries(split.buckets[i] as Map<string, number>) })),
    totals: Object.fromEntries(split.totals),
    total,
    shareOfVoice: { ...share, myBrandShare: both === 0 ? 0 : share.myBrand / both },
    timezone,
    since: new Date(since),
    until: new Date(until),
    interval,
  };
};
