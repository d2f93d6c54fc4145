import { type AsyncService, enumWordOf, notFound, requireProjectCaller, type RpcContext, SOURCE_WORDS } from "@earshot/platform";
import { type commonV1, mentionV1 } from "@earshot/proto";
import { type AnalyticsBucket, getMentionAnalytics } from "../domain/analytics";
import { createCategory, deleteCategory, listCategories, updateCategory } from "../domain/categories";
import type { Caller, MentionDeps } from "../domain/deps";
import { exportMentions } from "../domain/export";
import { rateMention } from "../domain/feedback";
import { categorizeMention, getMention, listMentions, updateMentionStatus } from "../domain/mentions";
import { getPublicAnalytics, listPublicMentions, type PublicFiltersInput, type PublicMention } from "../domain/public-dashboard";
import { createMentionView, deleteMentionView, getMentionView, listMentionViews, updateMentionView } from "../domain/views";
import { filtersOf, MENTION_STATUS_WORDS, toFiltersMessage } from "../filters";
import type { CategoryDoc, MentionDoc, MentionViewDoc } from "../store";
import { withStorySizes } from "../domain/stories/story-sizes";
import { toMentionMessage } from "../mention-message";

export { toMentionMessage };

// gRPC adapter for the reads, triage, categories and views: decode, call a domain verb, encode. No rules
// live here. The caller comes from the call metadata, never from the request. Proto3 zero values and
// absent fields mean "not given"; an empty filter list filters nothing.

/** Every MentionService RPC but ingestion and usage, which act for no person (nor do the public reads: the share id authorizes them), the change feed (changes-rpc.ts) and the keyword preview (preview-rpc.ts). */
export type MentionReadService = Omit<AsyncService<mentionV1.MentionServiceServer>, "ingestPosts" | "getWorkspaceUsage" | "listMentionChanges" | "previewKeyword">;

const callerOf = (ctx: RpcContext): Caller => requireProjectCaller(ctx);

const idOf = (id: string, what: string) => {
  // An empty id names nothing: the same answer as an id nobody has.
  if (!id) throw notFound(what);
  return id;
};

const limitOf = (limit: number) => (limit === 0 ? undefined : limit);

export const toCategoryMessage = (c: CategoryDoc): mentionV1.Category => ({
  id: c._id,
  projectId: c.projectId,
  name: c.name,
  description: c.description,
  icon: c.icon,
  order: c.order,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export const toViewMessage = (v: MentionViewDoc): mentionV1.MentionView => ({
  id: v._id,
  projectId: v.projectId,
  name: v.name,
  filters: toFiltersMessage(v.filters),
  order: v.order,
  createdAt: v.createdAt,
  updatedAt: v.updatedAt,
});

const countsOf = (counts: Record<string, number>): Record<string, string> => Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, String(n)]));

const toBucketMessage = (b: AnalyticsBucket): mentionV1.AnalyticsBucket => ({ start: b.start, counts: countsOf(b.counts) });

const publicFiltersOf = (f: mentionV1.PublicMentionFilters | undefined): PublicFiltersInput => ({
  sources: f?.sources.length ? [...f.sources] : undefined,
  groupNames: f?.groupNames.length ? [...f.groupNames] : undefined,
  days: f?.days || undefined,
});

const toPublicMentionMessage = (m: PublicMention): mentionV1.PublicMention => ({
  source: SOURCE_WORDS.value(m.source) ?? (0 as commonV1.Source),
  url: m.url,
  title: m.title,
  text: m.text,
  author: { handle: m.author.handle, name: m.author.name, url: m.author.url },
  publishedAt: m.publishedAt,
  matches: m.matches.map((t) => ({ term: t.term, field: t.field, start: t.start, end: t.end })),
  sentiment: m.sentiment,
  keywords: [...m.keywords],
  moreInStory: m.moreInStory,
});

/** A mention as a read answers it: with its story's size counted. */
const presentedOne = async (deps: MentionDeps, m: MentionDoc) => toMentionMessage((await withStorySizes(deps, [m]))[0]!);

export const mentionRpc = (deps: MentionDeps): MentionReadService => ({
  getMention: async (req, ctx) => ({ mention: await presentedOne(deps, await getMention(deps, callerOf(ctx), idOf(req.mentionId, "Mention"))) }),
  listMentions: async (req, ctx) => {
    const page = await listMentions(deps, callerOf(ctx), {
      projectId: req.projectId,
      filters: filtersOf(req.filters),
      viewId: req.viewId,
      limit: limitOf(req.limit),
      cursor: req.cursor || undefined,
      sort: req.sort,
      collapse: req.collapse,
    });
    return { mentions: page.items.map(toMentionMessage), nextCursor: page.nextCursor ?? "" };
  },
  exportMentions: async (req, ctx) => {
    const page = await exportMentions(deps, callerOf(ctx), {
      projectId: req.projectId,
      filters: filtersOf(req.filters),
      viewId: req.viewId,
      limit: limitOf(req.limit),
      cursor: req.cursor || undefined,
      collapse: req.collapse,
    });
    return { mentions: (await withStorySizes(deps, page.items)).map((m) => toMentionMessage(m)), nextCursor: page.nextCursor ?? "" };
  },
  updateMentionStatus: async (req, ctx) => ({
    mention: await presentedOne(deps, await updateMentionStatus(deps, callerOf(ctx), idOf(req.mentionId, "Mention"), enumWordOf(MENTION_STATUS_WORDS, req.status))),
  }),
  rateMention: async (req, ctx) => ({
    mention: await presentedOne(deps, await rateMention(deps, callerOf(ctx), idOf(req.mentionId, "Mention"), { relevant: req.relevant, reason: req.reason })),
  }),
  categorizeMention: async (req, ctx) => ({
    mention: await presentedOne(deps, await categorizeMention(deps, callerOf(ctx), idOf(req.mentionId, "Mention"), req.categoryId || null)),
  }),
  getMentionAnalytics: async (req, ctx) => {
    const a = await getMentionAnalytics(deps, callerOf(ctx), {
      projectId: req.projectId,
      since: req.since?.toISOString(),
      until: req.until?.toISOString(),
      interval: req.interval || undefined,
      groupBy: req.groupBy || undefined,
      filters: filtersOf(req.filters),
    });
    return {
      buckets: a.buckets.map(toBucketMessage),
      totals: countsOf(a.totals),
      total: String(a.total),
      shareOfVoice: { myBrand: String(a.shareOfVoice.myBrand), competitors: String(a.shareOfVoice.competitors), myBrandShare: a.shareOfVoice.myBrandShare },
      timezone: a.timezone,
    };
  },
  listPublicMentions: async (req) => {
    const page = await listPublicMentions(deps, req.shareId, { ...publicFiltersOf(req.filters), limit: limitOf(req.limit), cursor: req.cursor || undefined });
    return { mentions: page.items.map(toPublicMentionMessage), nextCursor: page.nextCursor ?? "" };
  },
  getPublicAnalytics: async (req) => {
    const a = await getPublicAnalytics(deps, req.shareId, publicFiltersOf(req.filters));
    return {
      days: a.days.map(toBucketMessage),
      bySource: countsOf(a.bySource),
      byGroup: a.byGroup.map((g) => ({ name: g.name, count: String(g.count) })),
      byKeyword: a.byKeyword.map((k) => ({ name: k.name, count: String(k.count) })),
      bySentiment: countsOf(a.bySentiment),
      total: String(a.total),
      timezone: a.timezone,
    };
  },
  createCategory: async (req, ctx) => ({
    category: toCategoryMessage(
      await createCategory(
        deps,
        callerOf(ctx),
        { projectId: req.projectId, name: req.name, description: req.description, icon: req.icon, order: req.order },
        ctx.idempotencyKey,
      ),
    ),
  }),
  listCategories: async (req, ctx) => {
    const page = await listCategories(deps, callerOf(ctx), { projectId: req.projectId, limit: limitOf(req.limit), cursor: req.cursor || undefined });
    return { categories: page.items.map(toCategoryMessage), nextCursor: page.nextCursor ?? "" };
  },
  updateCategory: async (req, ctx) => ({
    category: toCategoryMessage(
      await updateCategory(deps, callerOf(ctx), idOf(req.categoryId, "Category"), { name: req.name, description: req.description, icon: req.icon, order: req.order }),
    ),
  }),
  deleteCategory: async (req, ctx) => ({ category: toCategoryMessage(await deleteCategory(deps, callerOf(ctx), idOf(req.categoryId, "Category"))) }),
  createMentionView: async (req, ctx) => ({
    view: toViewMessage(
      await createMentionView(deps, callerOf(ctx), { projectId: req.projectId, name: req.name, filters: filtersOf(req.filters), order: req.order }, ctx.idempotencyKey),
    ),
  }),
  listMentionViews: async (req, ctx) => {
    const page = await listMentionViews(deps, callerOf(ctx), { projectId: req.projectId, limit: limitOf(req.limit), cursor: req.cursor || undefined });
    return { views: page.items.map(toViewMessage), nextCursor: page.nextCursor ?? "" };
  },
  getMentionView: async (req, ctx) => ({ view: toViewMessage(await getMentionView(deps, callerOf(ctx), idOf(req.viewId, "Mention view"))) }),
  updateMentionView: async (req, ctx) => ({
    view: toViewMessage(
      await updateMentionView(deps, callerOf(ctx), idOf(req.viewId, "Mention view"), {
        name: req.name,
        filters: req.filters ? filtersOf(req.filters) : undefined,
        order: req.order,
      }),
    ),
  }),
  deleteMentionView: async (req, ctx) => ({ view: toViewMessage(await deleteMentionView(deps, callerOf(ctx), idOf(req.viewId, "Mention view"))) }),
});
