import { USER_STATUSES } from "@earshot/account/fields";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { ANALYTICS_GROUP_BY, ANALYTICS_INTERVALS, MENTION_STATUSES, SENTIMENTS } from "@earshot/mention/fields";
import { MEMBER_STATUSES, MEMBER_TYPES, PROJECT_ROLES, PROJECT_STATUSES, SOURCES } from "@earshot/project/fields";
import type { accountV1, keywordV1, mentionV1, projectV1 } from "@earshot/proto";
import { z } from "zod";
import { MEMBER_TYPE_WORDS, PROJECT_STATUS_WORDS, ROLE_WORDS, SOURCE_WORDS } from "@earshot/platform";
import { apiWord } from "./wire-enums";

// The resources of the API: a schema for each (what OpenAPI and the MCP tools' outputSchema publish)
// and its presenter, gRPC message → JSON, typed by that schema so the two cannot drift apart. Times are
// ISO 8601 UTC strings; a field that can be absent is null, never missing.

/** The named resource schemas: OpenAPI lists them under components.schemas by their id. */
export const resourceSchemas = z.registry<{ id: string; description?: string }>();

const timestamp = z.iso.datetime().describe("ISO 8601, UTC.");
const optionalTimestamp = timestamp.nullable();

export const publicDashboardSchema = z
  .object({
    enabled: z.boolean(),
    shareUrl: z.string().nullable().describe("The read-only page, assigned on first enable; null before."),
    description: z.string(),
    websiteUrl: z.string().nullable(),
  })
  .register(resourceSchemas, { id: "PublicDashboard" });

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    color: z.string(),
    icon: z.string(),
    enabledSources: z.array(z.enum(SOURCES)),
    status: z.enum(PROJECT_STATUSES),
    digestTimezone: z.string(),
    role: z.enum(PROJECT_ROLES).describe("The caller's role in the project."),
    workspaceId: z.string(),
    ownerId: z.string(),
    publicDashboard: publicDashboardSchema,
    createdAt: timestamp,
    updatedAt: timestamp,
    archivedAt: optionalTimestamp,
  })
  .register(resourceSchemas, { id: "Project", description: "A project and the caller's role in it." });

export const memberSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    memberType: z.enum(MEMBER_TYPES),
    userId: z.string().nullable().describe("Null for an invitation nobody accepted."),
    email: z.string(),
    name: z.string().nullable(),
    role: z.enum(PROJECT_ROLES),
    status: z.enum(MEMBER_STATUSES),
    createdAt: timestamp,
    expiresAt: optionalTimestamp.describe("When an invitation lapses; null for members."),
  })
  .register(resourceSchemas, { id: "Member", description: "A member of a project, or an invitation (memberType invite)." });

export const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    status: z.enum(USER_STATUSES),
    workspace: z.object({ id: z.string(), plan: z.string().optional() }),
    createdAt: timestamp,
    updatedAt: timestamp,
    deactivatedAt: optionalTimestamp,
  })
  .register(resourceSchemas, { id: "Account", description: "The caller's account and workspace." });

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The first characters of the key, to tell keys apart."),
    scopes: z.array(z.enum(ALL_SCOPES as [string, ...string[]])),
    readOnly: z.boolean(),
    createdAt: timestamp,
    expiresAt: optionalTimestamp,
    lastUsedAt: optionalTimestamp,
    revokedAt: optionalTimestamp,
  })
  .register(resourceSchemas, { id: "ApiKey" });

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe("The plaintext key (svc_sk_…), shown this once.") })
  .register(resourceSchemas, { id: "CreatedApiKey", description: "A new API key with its plaintext." });

const allowanceSchema = z.object({ allowance: z.number().int(), used: z.number().int() }).register(resourceSchemas, { id: "Allowance" });

const openAllowanceSchema = z
  .object({ allowance: z.number().int().nullable().describe("null: the plan sets no limit."), used: z.number().int() })
  .register(resourceSchemas, { id: "OpenAllowance", description: "Something counted that a plan may leave unlimited." });

export const usageSchema = z
  .object({
    plan: z.string(),
    limits: z.object({
      projects: allowanceSchema,
      seats: allowanceSchema,
      keywords: allowanceSchema,
      webhookDeliveriesPerDay: allowanceSchema,
      linkedinSyncsPerDay: allowanceSchema,
      mentionsThisMonth: openAllowanceSchema.describe("Mentions the workspace received since the first instant of this month (UTC)."),
    }),
  })
  .register(resourceSchemas, { id: "Usage", description: "The workspace's plan allowances and what it uses of them." });

const keywordFiltersSchema = z
  .object({
    languages: z.array(z.string()).optional().describe("ISO 639-1 codes; only posts in one of them match."),
    minFollowers: z.number().int().optional().describe("Only posts whose author has at least this many followers match."),
    excludeAuthors: z.array(z.string()).optional().describe("Authors whose posts never match."),
    subreddits: z.array(z.string()).optional().describe("Reddit posts match only in these subreddits."),
    youtubeChannels: z.array(z.string()).optional().describe("YouTube posts match only from these channels."),
    allOf: z.array(z.string()).optional().describe("Phrases that must also appear in the post."),
  })
  .describe("The filters that are set; a member left out does not restrict matching.");

export const keywordSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    groupId: z.string(),
    value: z.string(),
    sources: z.array(z.enum(SOURCES)),
    aliases: z.array(z.string()),
    excludedTerms: z.array(z.string()),
    filters: keywordFiltersSchema,
    caseSensitive: z.boolean(),
    active: z.boolean().describe("false once deactivated: it no longer matches; its mentions stay."),
    createdAt: timestamp,
    updatedAt: timestamp,
    deactivatedAt: optionalTimestamp.describe("When it was deactivated; null while active."),
  })
  .register(resourceSchemas, { id: "Keyword", description: "A phrase a project listens for, with its aliases, exclusions, filters and sources." });

export const keywordGroupSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    order: z.number().int().describe("Position among the project's groups (ascending)."),
    isDefault: z.boolean().describe("true for My brand and Competitors: fixed, neither renamed, reordered nor deleted."),
    keywordCount: z.number().int().describe("Active keywords in the group."),
    inactiveKeywordCount: z.number().int().describe("Deactivated keywords in the group."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "KeywordGroup", description: "A group of a project's keywords." });

const mentionAuthorSchema = z.object({
  id: z.string(),
  handle: z.string(),
  name: z.string(),
  url: z.string().nullable(),
  followers: z.number().int().nullable().describe("Null when the platform does not say."),
});

const mentionFieldsSchema = {
  id: z.string(),
  projectId: z.string(),
  source: z.enum(SOURCES),
  sourceId: z.string().describe("The post's id on its platform."),
  url: z.string(),
  title: z.string().nullable(),
  text: z.string(),
  author: mentionAuthorSchema,
  publishedAt: timestamp,
  lang: z.string().nullable().describe("ISO 639-1, when the platform says."),
  parentId: z.string().nullable().describe("The post this one comments on, if any."),
  metrics: z.object({ likes: z.number().int(), replies: z.number().int(), shares: z.number().int(), views: z.number().int() }).nullable(),
  keywordIds: z.array(z.string()).describe("The project's keywords the post matched."),
  groupIds: z.array(z.string()).describe("Their groups."),
  matches: z
    .array(
      z.object({
        keywordId: z.string(),
        term: z.string().describe("The phrase (value or alias) that fired."),
        field: z.enum(["title", "text"]),
        start: z.number().int().describe("UTF-16 offset into the field."),
        end: z.number().int().describe("UTF-16 offset, exclusive."),
      }),
    )
    .describe("Which phrase of which keyword fired where."),
  sentiment: z
    .object({
      label: z.enum(SENTIMENTS),
      score: z.number().min(-1).max(1),
      method: z.string().describe("The scorer: lexicon (a word list with negation), not a model."),
    }),
  status: z.enum(MENTION_STATUSES),
  categoryId: z.string().nullable().describe("Null while uncategorized."),
  collectedAt: timestamp,
  matchedAt: timestamp.describe("When Earshot stored it as a mention."),
  updatedAt: timestamp,
};

export const mentionSchema = z
  .object(mentionFieldsSchema)
  .register(resourceSchemas, { id: "Mention", description: "A post that matched keywords of a project, with its triage." });

export const mentionWithHistorySchema = z
  .object({
    ...mentionFieldsSchema,
    history: z
      .array(
        z.object({
          field: z.enum(["status", "categoryId"]),
          from: z.string().nullable().describe("Null: uncategorized."),
          to: z.string().nullable().describe("Null: uncategorized."),
          byUserId: z.string(),
          at: timestamp,
        }),
      )
      .describe("Status and category changes, oldest first (the last 100)."),
  })
  .register(resourceSchemas, { id: "MentionWithHistory", description: "A mention with its triage history." });

export const categorySchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    order: z.number().int().describe("Position among the project's categories (ascending)."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "Category", description: "A project's category for triaging mentions." });

const mentionViewFiltersSchema = z
  .object({
    status: z.array(z.enum(MENTION_STATUSES)).optional(),
    keywordId: z.array(z.string()).optional(),
    groupId: z.array(z.string()).optional(),
    source: z.array(z.enum(SOURCES)).optional(),
    categoryId: z.array(z.string()).optional(),
    sentiment: z.array(z.enum(SENTIMENTS)).optional(),
    q: z.string().optional(),
    author: z.string().optional(),
    since: timestamp.optional(),
    until: timestamp.optional(),
  })
  .describe("The list_mentions filters the view applies; a member left out does not filter.");

export const mentionViewSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    filters: mentionViewFiltersSchema,
    order: z.number().int().describe("Position among the project's views (ascending)."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "MentionView", description: "A saved set of list_mentions filters." });

const countsSchema = z.record(z.string(), z.number().int());

export const mentionAnalyticsSchema = z
  .object({
    buckets: z
      .array(z.object({ start: timestamp, counts: countsSchema.describe('Mentions by the groupBy key ("all" without groupBy); keys with none are left out.') }))
      .describe("One per interval from since to until, oldest first, empty ones included."),
    totals: countsSchema.describe("The buckets' counts summed by key."),
    total: z.number().int().describe("Mentions in the period (a mention counts once, whatever it is grouped by)."),
    shareOfVoice: z.object({
      myBrand: z.number().int().describe("Mentions matching a keyword of My brand."),
      competitors: z.number().int().describe("Mentions matching a keyword of Competitors."),
      myBrandShare: z.number().min(0).max(1).describe("myBrand / (myBrand + competitors); 0 when both are 0."),
    }),
    timezone: z.string().describe("The project's time zone, in which days and weeks begin."),
    interval: z.enum(ANALYTICS_INTERVALS),
    groupBy: z.enum(ANALYTICS_GROUP_BY).nullable(),
  })
  .register(resourceSchemas, { id: "MentionAnalytics", description: "Mention counts over time and by a dimension, with share of voice." });

export type Project = z.output<typeof projectSchema>;
export type Member = z.output<typeof memberSchema>;
export type User = z.output<typeof userSchema>;
export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof createdApiKeySchema>;
export type Usage = z.output<typeof usageSchema>;
export type Keyword = z.output<typeof keywordSchema>;
export type KeywordGroup = z.output<typeof keywordGroupSchema>;
export type Mention = z.output<typeof mentionSchema>;
export type MentionWithHistory = z.output<typeof mentionWithHistorySchema>;
export type Category = z.output<typeof categorySchema>;
export type MentionView = z.output<typeof mentionViewSchema>;
export type MentionAnalytics = z.output<typeof mentionAnalyticsSchema>;

/** A message the service must have sent; its absence is a service fault, never the client's. */
const required = <T>(message: T | undefined, what: string): T => {
  if (message === undefined) throw new Error(`The service answered without a ${what}.`);
  return message;
};

const at = (d: Date | undefined, what: string): string => required(d, what).toISOString();
const atOrNull = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

/** A proto string as one of the schema's values; anything else is a service fault. */
const oneOf = <const T extends readonly string[]>(values: T, value: string | null, what: string): T[number] => {
  if (value === null || !(values as readonly string[]).includes(value)) throw new Error(`The service answered ${what} "${value}".`);
  return value as T[number];
};

export const presentProject = (message: projectV1.Project | undefined, publicUrl: string): Project => {
  const p = required(message, "project");
  const dash = p.publicDashboard;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    color: p.color,
    icon: p.icon,
    enabledSources: p.enabledSources.map((s) => oneOf(SOURCES, apiWord(SOURCE_WORDS, s), "source")),
    status: oneOf(PROJECT_STATUSES, apiWord(PROJECT_STATUS_WORDS, p.status), "project status"),
    digestTimezone: p.digestTimezone,
    role: oneOf(PROJECT_ROLES, apiWord(ROLE_WORDS, p.role), "role"),
    workspaceId: p.workspaceId,
    ownerId: p.ownerId,
    publicDashboard: {
      enabled: dash?.enabled ?? false,
      shareUrl: dash?.shareId ? `${publicUrl}/p/${dash.shareId}` : null,
      description: dash?.description ?? "",
      websiteUrl: dash?.websiteUrl || null,
    },
    createdAt: at(p.createdAt, "project createdAt"),
    updatedAt: at(p.updatedAt, "project updatedAt"),
    archivedAt: atOrNull(p.archivedAt),
  };
};

export const presentMember = (message: projectV1.Member | undefined): Member => {
  const m = required(message, "member");
  return {
    id: m.id,
    projectId: m.projectId,
    memberType: oneOf(MEMBER_TYPES, apiWord(MEMBER_TYPE_WORDS, m.memberType), "member type"),
    userId: m.userId || null,
    email: m.email,
    name: m.name || null,
    role: oneOf(PROJECT_ROLES, apiWord(ROLE_WORDS, m.role), "role"),
    status: oneOf(MEMBER_STATUSES, m.status, "member status"),
    createdAt: at(m.createdAt, "member createdAt"),
    expiresAt: atOrNull(m.expiresAt),
  };
};

export const presentUser = (message: accountV1.User | undefined, w: accountV1.Workspace | undefined): User => {
  const u = required(message, "user");
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    status: oneOf(USER_STATUSES, u.status, "user status"),
    workspace: w ? { id: w.id, plan: w.plan } : { id: u.workspaceId },
    createdAt: at(u.createdAt, "user createdAt"),
    updatedAt: at(u.updatedAt, "user updatedAt"),
    deactivatedAt: atOrNull(u.deactivatedAt),
  };
};

export const presentApiKey = (message: accountV1.ApiKey | undefined): ApiKey => {
  const k = required(message, "API key");
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    readOnly: k.scopes.every((s) => s.endsWith(":read")),
    createdAt: at(k.createdAt, "API key createdAt"),
    expiresAt: atOrNull(k.expiresAt),
    lastUsedAt: atOrNull(k.lastUsedAt),
    revokedAt: atOrNull(k.revokedAt),
  };
};

export const presentCreatedApiKey = (message: accountV1.ApiKey | undefined, plaintext: string): CreatedApiKey => ({
  ...presentApiKey(message),
  key: plaintext,
});

/** Only the filters that restrict something: an empty list or an absent number restricts nothing. */
const presentFilters = (f: keywordV1.KeywordFilters | undefined): Keyword["filters"] => {
  const filters: Keyword["filters"] = {};
  if (!f) return filters;
  for (const name of ["languages", "excludeAuthors", "subreddits", "youtubeChannels", "allOf"] as const) {
    if (f[name].length > 0) filters[name] = f[name];
  }
  if (f.minFollowers !== undefined) filters.minFollowers = f.minFollowers;
  return filters;
};

export const presentKeyword = (message: keywordV1.Keyword | undefined): Keyword => {
  const k = required(message, "keyword");
  return {
    id: k.id,
    projectId: k.projectId,
    groupId: k.groupId,
    value: k.value,
    sources: k.sources.map((s) => oneOf(SOURCES, apiWord(SOURCE_WORDS, s), "source")),
    aliases: k.aliases,
    excludedTerms: k.excludedTerms,
    filters: presentFilters(k.filters),
    caseSensitive: k.caseSensitive,
    active: k.active,
    createdAt: at(k.createdAt, "keyword createdAt"),
    updatedAt: at(k.updatedAt, "keyword updatedAt"),
    deactivatedAt: atOrNull(k.deactivatedAt),
  };
};

export const presentKeywordGroup = (message: keywordV1.KeywordGroup | undefined): KeywordGroup => {
  const g = required(message, "keyword group");
  return {
    id: g.id,
    projectId: g.projectId,
    name: g.name,
    order: g.order,
    isDefault: g.isDefault,
    keywordCount: g.keywordCount,
    inactiveKeywordCount: g.inactiveKeywordCount,
    createdAt: at(g.createdAt, "keyword group createdAt"),
    updatedAt: at(g.updatedAt, "keyword group updatedAt"),
  };
};

/** An int64 the service sent (ts-proto carries them as decimal strings). */
const int = (value: string, what: string): number => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`The service answered ${what} "${value}".`);
  return n;
};

const presentAuthor = (message: mentionV1.Author | undefined): Mention["author"] => {
  const a = required(message, "mention author");
  return { id: a.id, handle: a.handle, name: a.name, url: a.url ?? null, followers: a.followers === undefined ? null : int(a.followers, "author followers") };
};

export const presentMention = (message: mentionV1.Mention | undefined): Mention => {
  const m = required(message, "mention");
  const sentiment = required(m.sentiment, "mention sentiment");
  return {
    id: m.id,
    projectId: m.projectId,
    source: oneOf(SOURCES, apiWord(SOURCE_WORDS, m.source), "source"),
    sourceId: m.sourceId,
    url: m.url,
    title: m.title ?? null,
    text: m.text,
    author: presentAuthor(m.author),
    publishedAt: at(m.publishedAt, "mention publishedAt"),
    lang: m.lang ?? null,
    parentId: m.parentId ?? null,
    metrics: m.metrics
      ? { likes: int(m.metrics.likes, "likes"), replies: int(m.metrics.replies, "replies"), shares: int(m.metrics.shares, "shares"), views: int(m.metrics.views, "views") }
      : null,
    keywordIds: m.keywordIds,
    groupIds: m.groupIds,
    matches: m.matches.map((t) => ({ keywordId: t.keywordId, term: t.term, field: oneOf(["title", "text"] as const, t.field, "match field"), start: t.start, end: t.end })),
    sentiment: { label: oneOf(SENTIMENTS, sentiment.label, "sentiment"), score: sentiment.score, method: sentiment.method },
    status: oneOf(MENTION_STATUSES, m.status, "mention status"),
    categoryId: m.categoryId || null,
    collectedAt: at(m.collectedAt, "mention collectedAt"),
    matchedAt: at(m.matchedAt, "mention matchedAt"),
    updatedAt: at(m.updatedAt, "mention updatedAt"),
  };
};

export const presentMentionWithHistory = (message: mentionV1.Mention | undefined): MentionWithHistory => ({
  ...presentMention(message),
  history: required(message, "mention").history.map((c) => ({
    field: oneOf(["status", "categoryId"] as const, c.field, "history field"),
    from: c.from || null,
    to: c.to || null,
    byUserId: c.byUserId,
    at: at(c.at, "history at"),
  })),
});

export const presentCategory = (message: mentionV1.Category | undefined): Category => {
  const c = required(message, "category");
  return {
    id: c.id,
    projectId: c.projectId,
    name: c.name,
    description: c.description,
    icon: c.icon,
    order: c.order,
    createdAt: at(c.createdAt, "category createdAt"),
    updatedAt: at(c.updatedAt, "category updatedAt"),
  };
};

/** A view's filters as given: only the members that filter something (an empty list filters nothing). */
const presentViewFilters = (f: mentionV1.MentionFilters | undefined): MentionView["filters"] => {
  const filters: MentionView["filters"] = {};
  if (!f) return filters;
  if (f.status.length > 0) filters.status = f.status.map((v) => oneOf(MENTION_STATUSES, v, "status filter"));
  if (f.keywordIds.length > 0) filters.keywordId = f.keywordIds;
  if (f.groupIds.length > 0) filters.groupId = f.groupIds;
  if (f.sources.length > 0) filters.source = f.sources.map((v) => oneOf(SOURCES, v, "source filter"));
  if (f.categoryIds.length > 0) filters.categoryId = f.categoryIds;
  if (f.sentiments.length > 0) filters.sentiment = f.sentiments.map((v) => oneOf(SENTIMENTS, v, "sentiment filter"));
  if (f.q !== undefined) filters.q = f.q;
  if (f.author !== undefined) filters.author = f.author;
  if (f.since) filters.since = f.since.toISOString();
  if (f.until) filters.until = f.until.toISOString();
  return filters;
};

export const presentMentionView = (message: mentionV1.MentionView | undefined): MentionView => {
  const v = required(message, "mention view");
  return {
    id: v.id,
    projectId: v.projectId,
    name: v.name,
    filters: presentViewFilters(v.filters),
    order: v.order,
    createdAt: at(v.createdAt, "mention view createdAt"),
    updatedAt: at(v.updatedAt, "mention view updatedAt"),
  };
};

const presentCounts = (counts: Record<string, string>): Record<string, number> =>
  Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, int(v, `count of ${k}`)]));

export const presentMentionAnalytics = (
  res: mentionV1.GetMentionAnalyticsResponse,
  asked: { interval: MentionAnalytics["interval"]; groupBy: MentionAnalytics["groupBy"] },
): MentionAnalytics => {
  const share = required(res.shareOfVoice, "share of voice");
  return {
    buckets: res.buckets.map((b) => ({ start: at(b.start, "bucket start"), counts: presentCounts(b.counts) })),
    totals: presentCounts(res.totals),
    total: int(res.total, "total"),
    shareOfVoice: { myBrand: int(share.myBrand, "myBrand"), competitors: int(share.competitors, "competitors"), myBrandShare: share.myBrandShare },
    timezone: res.timezone,
    interval: asked.interval,
    groupBy: asked.groupBy,
  };
};
