import { createKeywordSchema, keywordFields, type KeywordFilters, updateKeywordSchema } from "@earshot/keyword/fields";
import type { keywordV1 } from "@earshot/proto";
import { z } from "zod";
import { SOURCE_WORDS, SOURCES } from "@earshot/platform";
import { defineOperation, type HandlerContext } from "../operation";
import { idField, pageQuery, projectId, queryBoolean, resourceId } from "../shared/schemas";
import { wireValue } from "../shared/wire-enums";
import { previewKeywordOperation } from "./preview";
import { keywordSchema, presentKeyword } from "./resource";

const keywordPath = z.object({ keywordId: resourceId("kw", "The keyword id, e.g. kw_01J…") }).strict();

/** A keyword's group as the API takes it: the keyword service's field, a keyword group id's shape checked. */
const groupId = idField("kwg").describe(keywordFields.groupId.description ?? "");

/** filters as the gRPC message carries them: an empty list restricts nothing, as a left-out member. */
const filtersMessage = (f: KeywordFilters): keywordV1.KeywordFilters => ({
  languages: f.languages ?? [],
  minFollowers: f.minFollowers,
  excludeAuthors: f.excludeAuthors ?? [],
  subreddits: f.subreddits ?? [],
  youtubeChannels: f.youtubeChannels ?? [],
  allOf: f.allOf ?? [],
});

const sourcesMessage = (sources: readonly string[]) => sources.map((s) => wireValue(SOURCE_WORDS, s));

/**
 * The sources a project has enabled: create_keyword's default. Asked of the project service, which owns
 * them (the keyword service's record of a project may not have heard of one created a moment ago); a
 * project the caller cannot see is its 404, as the keyword service would answer.
 */
const enabledSources = async (ctx: HandlerContext, projectId: string) => {
  const { project } = await ctx.backends.project.getProject({ projectId });
  return project?.enabledSources ?? [];
};

const ALLOWANCE = "402 usage_limited (limit keywords) when the workspace already has its plan's allowance of active keywords (100 on free)";
const DUPLICATE = "409 conflict when another active keyword of the project has the same value under the same case rule";

export const keywordOperations = [
  defineOperation({
    name: "list_keywords",
    title: "List keywords",
    description:
      "Lists a project's keywords, active and inactive, newest first. Filters: groupId (one group), active (true: tracked ones, false: deactivated ones), source (keywords listening on x, reddit, youtube, linkedin, hackernews, bluesky, rss or github).",
    method: "GET",
    path: "/keywords",
    scope: "keywords:read",
    tag: "Keywords",
    output: keywordSchema,
    input: {
      query: z.object({
        projectId,
        groupId: idField("kwg").describe("Only the keywords of this group (kwg_…).").optional(),
        active: queryBoolean("true: only active keywords; false: only deactivated ones.").optional(),
        source: z.enum(SOURCES).optional().describe("Only keywords listening on this source."),
        ...pageQuery.shape,
      }),
    },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.keyword.listKeywords({
        projectId: input.projectId,
        groupId: input.groupId,
        active: input.active,
        source: input.source === undefined ? undefined : wireValue(SOURCE_WORDS, input.source),
        limit: input.limit,
        cursor: input.cursor ?? "",
      });
      return { data: res.keywords.map(presentKeyword), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "create_keyword",
    title: "Create a keyword",
    description:
      "Starts tracking a phrase in a project (editor or owner). Only projectId and value are required: sources defaults to every source the project has enabled, " +
      "aliases and excludedTerms to [], filters to {} and caseSensitive to false. " +
      `groupId defaults to the project's My brand group; a group of another project is 400. ${ALLOWANCE}; ${DUPLICATE} (caseSensitive false compares case- and accent-folded values).`,
    method: "POST",
    path: "/keywords",
    scope: "keywords:write",
    tag: "Keywords",
    output: keywordSchema,
    input: { body: z.object({ projectId, ...createKeywordSchema.shape, groupId: groupId.optional() }).strict() },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (input, ctx) => {
      const { keyword } = await ctx.backends.keyword.createKeyword({
        projectId: input.projectId,
        groupId: input.groupId,
        value: input.value,
        sources: input.sources ? sourcesMessage(input.sources) : await enabledSources(ctx, input.projectId),
        aliases: input.aliases,
        excludedTerms: input.excludedTerms,
        filters: filtersMessage(input.filters),
        caseSensitive: input.caseSensitive,
      });
      return { data: presentKeyword(keyword) };
    },
  }),
  defineOperation({
    name: "get_keyword",
    title: "Get a keyword",
    description: "Returns one keyword, active or deactivated, of a project the caller is a member of.",
    method: "GET",
    path: "/keywords/:keywordId",
    scope: "keywords:read",
    tag: "Keywords",
    output: keywordSchema,
    input: { path: keywordPath },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { keyword } = await ctx.backends.keyword.getKeyword({ keywordId: input.keywordId });
      return { data: presentKeyword(keyword) };
    },
  }),
  defineOperation({
    name: "update_keyword",
    title: "Update a keyword",
    description:
      "Changes any of value, sources, aliases, excludedTerms, filters and caseSensitive (a given field replaces the old one whole) of a keyword (editor or owner). " +
      "groupId moves it to another group of its project. active false deactivates it as delete_keyword does; active true tracks it again. " +
      `Reactivating: ${ALLOWANCE}. ${DUPLICATE}.`,
    method: "PATCH",
    path: "/keywords/:keywordId",
    scope: "keywords:write",
    tag: "Keywords",
    output: keywordSchema,
    input: { path: keywordPath, body: updateKeywordSchema.safeExtend({ groupId: groupId.optional() }) },
    successStatus: 200,
    // active false stops tracking the keyword, as delete_keyword does: that is destructive.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { keyword } = await ctx.backends.keyword.updateKeyword({
        keywordId: input.keywordId,
        groupId: input.groupId,
        value: input.value,
        // Wrapped lists: absent leaves the field alone, present (even empty) replaces it.
        sources: input.sources ? { sources: sourcesMessage(input.sources) } : undefined,
        aliases: input.aliases ? { values: input.aliases } : undefined,
        excludedTerms: input.excludedTerms ? { values: input.excludedTerms } : undefined,
        filters: input.filters ? filtersMessage(input.filters) : undefined,
        caseSensitive: input.caseSensitive,
        active: input.active,
      });
      return { data: presentKeyword(keyword) };
    },
  }),
  defineOperation({
    name: "delete_keyword",
    title: "Stop tracking a keyword",
    description:
      "Deactivates a keyword (editor or owner): it stops matching new posts and no longer counts against the keyword allowance; its mentions and history are kept. " +
      "Returns it with active false; deleting an inactive keyword again changes nothing. update_keyword with active true tracks it again.",
    method: "DELETE",
    path: "/keywords/:keywordId",
    scope: "keywords:write",
    tag: "Keywords",
    output: keywordSchema,
    input: { path: keywordPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { keyword } = await ctx.backends.keyword.deleteKeyword({ keywordId: input.keywordId });
      return { data: presentKeyword(keyword) };
    },
  }),
  previewKeywordOperation,
];
