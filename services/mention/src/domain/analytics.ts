import { type CountKey, type FieldError, type Filter, validationFailed } from "@earshot/platform/core";
import { z } from "zod";
import { ANALYTICS_GROUP_BY, analyticsFields, MAX_BUCKETS, type MentionFilterInput, UNCATEGORIZED } from "../fields";
import { accessProject } from "./access";
import type { Caller, MentionDeps } from "./deps";
import { checkFilters, mentionQuery } from "./filters";
import { bucketStart, type Interval, isKnownTimeZone, nextBucketStart, nominalLength } from "./local-time";
import { parseFields, required } from "./input";

// Analytics: how many of a project's mentions were published in each hour, day or week of the project's
// time zone, split by one dimension, with the share of voice between My brand and Competitors. The store
// counts (countBy), so a project of any size costs memory for its buckets only and no mention is read.

export type GroupBy = (typeof ANALYTICS_GROUP_BY)[number];

const DEFAULT_SPAN_MS = 30 * 24 * 3_600_000;
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

/** The mention field each split counts by (an array field counts a mention once per distinct element). */
const FIELD_OF: Record<GroupBy, string> = {
  keyword: "keywordIds",
  group: "groupIds",
  source: "source",
  sentiment: "sentiment.label",
  status: "status",
  category: "categoryId",
};

/** Splits by an array field: a mention counts once per distinct element, so they do not sum to the total. */
const ARRAY_SPLITS: ReadonlySet<GroupBy | undefined> = new Set<GroupBy | undefined>(["keyword", "group"]);

/** The key a count is shown under: an uncategorized mention (no categoryId) counts under UNCATEGORIZED. */
const shownKey = (groupBy: GroupBy | undefined, key: CountKey): string | null => {
  if (groupBy === undefined) return ALL;
  if (key === null) return groupBy === "category" ? UNCATEGORIZED : null;
  return String(key);
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
  /** Also count the mentions of the My brand and Competitors groups. */
  shareOfVoice?: boolean;
}

export interface Tally {
  /** Per dimension, in the order asked: each bucket's counts and the totals over all buckets. */
  splits: Array<{ buckets: Array<Map<string, number>>; totals: Map<string, number> }>;
  total: number;
  share: { myBrand: number; competitors: number };
}

/** The query with one more condition. */
const and = (query: Filter, extra: Filter): Filter => ({ ...query, $and: [...((query.$and as Filter[] | undefined) ?? []), extra] });

/**
 * Counts a project's mentions published in [from, to) matching the filters into every dimension asked.
 * The store counts (grouped by the dimension's field and by bucket of publishedAt), so no mention is read
 * into the process and the cost is the database's pass over the period's index range.
 */
export const tallyMentions = async (deps: MentionDeps, spec: TallySpec): Promise<Tally> => {
  const splits = spec.dimensions.map(() => ({ buckets: spec.starts.map(() => new Map<string, number>()), totals: new Map<string, number>() }));
  const share = { myBrand: 0, competitors: 0 };
  if (spec.from >= spec.to) return { splits, total: 0, share };
  const mentions = deps.collections.mentions;
  const query: Filter = mentionQuery(spec.projectId, { ...spec.filters, since: new Date(spec.from).toISOString(), until: new Date(spec.to).toISOString() });
  const buckets = { field: "publishedAt", starts: spec.starts.map((s) => new Date(s)) };
  // Every mention of [from, to) falls in a bucket when the first starts no later than `from`: then a split
  // that counts each mention once (not by keyword or group, where a mention counts once per element) sums
  // to the total, and the total needs no count of its own.
  let counted: number | undefined;
  const wholeRange = spec.starts.length > 0 && (spec.starts[0] as number) <= spec.from;
  for (const [d, groupBy] of spec.dimensions.entries()) {
    const split = splits[d] as Tally["splits"][number];
    const rows = await mentions.countBy(query, { ...(groupBy ? { by: FIELD_OF[groupBy] } : {}), buckets });
    if (counted === undefined && wholeRange && !ARRAY_SPLITS.has(groupBy)) counted = rows.reduce((n, row) => n + row.count, 0);
    for (const row of rows) {
      const key = shownKey(groupBy, row.key);
      const bucket = split.buckets[row.bucket];
      if (key === null || !bucket) continue;
      bucket.set(key, (bucket.get(key) ?? 0) + row.count);
      split.totals.set(key, (split.totals.get(key) ?? 0) + row.count);
    }
  }
  const total = counted ?? (await mentions.count(query));
  if (spec.shareOfVoice) Object.assign(share, await shareOfVoice(deps, spec.projectId, query));
  return { splits, total, share };
};

/**
 * How many of the mentions `query` selects are in My brand's groups, and in Competitors'. Each is a count of
 * its own: a mention in two groups of one side counts once, and with nothing else filtered the store counts
 * it from the group id's index range alone (the group's mentions of the period, not every mention of it).
 */
const shareOfVoice = async (deps: MentionDeps, projectId: string, query: Filter): Promise<{ myBrand: number; competitors: number }> => {
  const groups = await defaultGroups(deps, projectId);
  const countIn = (set: Set<string>) => (set.size === 0 ? Promise.resolve(0) : deps.collections.mentions.count(and(query, { groupIds: { $in: [...set] } })));
  return { myBrand: await countIn(groups.myBrand), competitors: await countIn(groups.competitors) };
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
  const { splits, total, share } = await tallyMentions(deps, { projectId, starts, from, to, filters, dimensions: [params.groupBy], shareOfVoice: true });
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
