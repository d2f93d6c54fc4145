import { enumWordOf, notFound, requireProjectCaller, type RpcContext, SOURCE_WORDS } from "@earshot/platform";
import type { commonV1, keywordV1 } from "@earshot/proto";
import { listCollectableKeywords } from "../domain/collectable";
import type { Caller, KeywordDeps } from "../domain/deps";
import { createKeywordGroup, deleteKeywordGroup, listKeywordGroups, updateKeywordGroup } from "../domain/groups";
import { createKeyword, deleteKeyword, getKeyword, keywordsInUse, listKeywords, updateKeyword } from "../domain/keywords";
import type { KeywordFilters } from "../fields";
import { toGroupMessage, toKeywordMessage } from "../resource-messages";

// gRPC adapter: decode, call a domain verb, encode. No rules live here. The caller (with the memberships
// the edge resolved) comes from the call metadata, never from the request. Proto3 zero values and absent
// wrappers mean "not given"; an enum value this build does not know becomes a word the rules refuse.

const callerOf = (ctx: RpcContext): Caller => requireProjectCaller(ctx);

const filtersOf = (f: keywordV1.KeywordFilters | undefined): KeywordFilters => {
  const out: KeywordFilters = {};
  if (!f) return out;
  if (f.languages.length > 0) out.languages = f.languages as KeywordFilters["languages"];
  if (f.minFollowers !== undefined) out.minFollowers = f.minFollowers;
  if (f.excludeAuthors.length > 0) out.excludeAuthors = f.excludeAuthors;
  if (f.subreddits.length > 0) out.subreddits = f.subreddits;
  if (f.youtubeChannels.length > 0) out.youtubeChannels = f.youtubeChannels;
  if (f.allOf.length > 0) out.allOf = f.allOf;
  return out;
};

const sourcesOf = (list: commonV1.Source[]): string[] => list.map((v) => enumWordOf(SOURCE_WORDS, v));

const idOf = (id: string, what: string) => {
  // An empty id names nothing: the same answer as an id nobody has.
  if (!id) throw notFound(what);
  return id;
};

export const keywordRpc = (deps: KeywordDeps) => ({
  createKeyword: async (req: keywordV1.CreateKeywordRequest, ctx: RpcContext): Promise<keywordV1.CreateKeywordResponse> => {
    const keyword = await createKeyword(
      deps,
      callerOf(ctx),
      {
        projectId: req.projectId,
        groupId: req.groupId,
        value: req.value,
        sources: sourcesOf(req.sources),
        aliases: req.aliases,
        excludedTerms: req.excludedTerms,
        filters: filtersOf(req.filters),
        caseSensitive: req.caseSensitive,
      },
      ctx.idempotencyKey,
    );
    return { keyword: toKeywordMessage(keyword) };
  },
  getKeyword: async (req: keywordV1.GetKeywordRequest, ctx: RpcContext): Promise<keywordV1.GetKeywordResponse> => ({
    keyword: toKeywordMessage(await getKeyword(deps, callerOf(ctx), idOf(req.keywordId, "Keyword"))),
  }),
  listKeywords: async (req: keywordV1.ListKeywordsRequest, ctx: RpcContext): Promise<keywordV1.ListKeywordsResponse> => {
    const page = await listKeywords(deps, callerOf(ctx), {
      projectId: req.projectId,
      groupId: req.groupId,
      active: req.active,
      source: req.source === undefined ? undefined : enumWordOf(SOURCE_WORDS, req.source),
      limit: req.limit === 0 ? undefined : req.limit,
      cursor: req.cursor || undefined,
    });
    return { keywords: page.items.map(toKeywordMessage), nextCursor: page.nextCursor ?? "" };
  },
  updateKeyword: async (req: keywordV1.UpdateKeywordRequest, ctx: RpcContext): Promise<keywordV1.UpdateKeywordResponse> => {
    const keyword = await updateKeyword(deps, callerOf(ctx), idOf(req.keywordId, "Keyword"), {
      groupId: req.groupId,
      value: req.value,
      sources: req.sources ? sourcesOf(req.sources.sources) : undefined,
      aliases: req.aliases?.values,
      excludedTerms: req.excludedTerms?.values,
      filters: req.filters ? filtersOf(req.filters) : undefined,
      caseSensitive: req.caseSensitive,
      active: req.active,
    });
    return { keyword: toKeywordMessage(keyword) };
  },
  deleteKeyword: async (req: keywordV1.DeleteKeywordRequest, ctx: RpcContext): Promise<keywordV1.DeleteKeywordResponse> => ({
    keyword: toKeywordMessage(await deleteKeyword(deps, callerOf(ctx), idOf(req.keywordId, "Keyword"))),
  }),
  createKeywordGroup: async (req: keywordV1.CreateKeywordGroupRequest, ctx: RpcContext): Promise<keywordV1.CreateKeywordGroupResponse> => ({
    group: toGroupMessage(await createKeywordGroup(deps, callerOf(ctx), { projectId: idOf(req.projectId, "Project"), name: req.name }, ctx.idempotencyKey)),
  }),
  listKeywordGroups: async (req: keywordV1.ListKeywordGroupsRequest, ctx: RpcContext): Promise<keywordV1.ListKeywordGroupsResponse> => {
    const page = await listKeywordGroups(deps, callerOf(ctx), {
      projectId: idOf(req.projectId, "Project"),
      limit: req.limit === 0 ? undefined : req.limit,
      cursor: req.cursor || undefined,
    });
    return { groups: page.groups.map(toGroupMessage), nextCursor: page.nextCursor ?? "" };
  },
  updateKeywordGroup: async (req: keywordV1.UpdateKeywordGroupRequest, ctx: RpcContext): Promise<keywordV1.UpdateKeywordGroupResponse> => ({
    group: toGroupMessage(await updateKeywordGroup(deps, callerOf(ctx), idOf(req.groupId, "Keyword group"), { name: req.name, order: req.order })),
  }),
  deleteKeywordGroup: async (req: keywordV1.DeleteKeywordGroupRequest, ctx: RpcContext): Promise<keywordV1.DeleteKeywordGroupResponse> => ({
    group: toGroupMessage(await deleteKeywordGroup(deps, callerOf(ctx), idOf(req.groupId, "Keyword group"))),
  }),
  // The edge's get_usage asks for the caller's own workspace, so it names it and needs no caller. The
  // count is named as get_usage names the limit (the one this service's registry entry declares).
  getWorkspaceUsage: async (req: keywordV1.GetWorkspaceUsageRequest, _ctx: RpcContext): Promise<keywordV1.GetWorkspaceUsageResponse> => ({
    usage: { counts: { keywords: String(await keywordsInUse(deps, idOf(req.workspaceId, "Workspace"))) } },
  }),
  // Collection and matching read what to listen for with this; they act for no person.
  listCollectableKeywords: async (req: keywordV1.ListCollectableKeywordsRequest, _ctx: RpcContext): Promise<keywordV1.ListCollectableKeywordsResponse> => {
    const page = await listCollectableKeywords(deps, { projectId: req.projectId, limit: req.limit === 0 ? undefined : req.limit, cursor: req.cursor || undefined });
    return { keywords: page.items.map(toKeywordMessage), nextCursor: page.nextCursor ?? "", collecting: page.collecting };
  },
});
