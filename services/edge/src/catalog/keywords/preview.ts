import { type KeywordFilters, keywordFields, updateKeywordSchema } from "@earshot/keyword/fields";
import { analyticsFields } from "@earshot/mention/fields";
import { notFound, SOURCE_WORDS, SOURCES, validationFailed } from "@earshot/platform";
import type { commonV1, integrationV1, keywordV1, mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { defineOperation, type HandlerContext } from "../operation";
import { mentionSchema, presentMention } from "../mentions/resource";
import { idField, projectId, resourceId } from "../shared/schemas";
import { int, oneOf, required, resourceSchemas } from "../shared/resources";
import { wireValue } from "../shared/wire-enums";

// preview_keyword: what a keyword definition would match in the project's stored mentions, saving nothing.
// The definition takes create_keyword's fields (or update_keyword's, over an existing keyword), checked by
// the keyword service's field module so a bad one is the same 400; the mention service runs it with the
// matcher ingestion uses. A POST only because a definition is a body; it writes nothing, so it is
// annotated read-only and takes no Idempotency-Key.

const SAMPLE = 20;
const MAX_DAYS = 30;
// The live sample's bounds, as the integration service applies them (domain/sample.ts there): posts shown
// per source and in all, and the deadline of the sources' searches. The call waits a little longer so a
// slow source comes back as `unavailable: timeout` rather than failing the whole preview.
const LIVE_PER_SOURCE = 10;
const LIVE_TOTAL = 20;
const LIVE_DEADLINE_MS = 10_000;
const LIVE_ANSWER_MS = 3_000;

const previewBody = z
  .object({
    projectId,
    keywordId: resourceId("kw", "An existing keyword of the project (kw_…): the other fields are changes to it, as update_keyword takes them. Left out: a new keyword, value required."),
    ...updateKeywordSchema.omit({ active: true, groupId: true }).shape,
    groupId: idField("kwg").describe(keywordFields.groupId.description ?? "").optional(),
    since: analyticsFields.since.describe(`Start of the period (inclusive, by publishedAt), ISO 8601; default 7 days before until; at most ${MAX_DAYS} days before until.`).optional(),
    until: analyticsFields.until.describe("End of the period (exclusive), ISO 8601; default now.").optional(),
    liveSample: z
      .boolean()
      .describe(
        `true adds liveSample: one page of each searchable source's search for the definition, matched like the stored part (at most ${LIVE_PER_SOURCE} posts a source, ${LIVE_TOTAL} in all; nothing saved). Default false.`,
      )
      .optional(),
  })
  .partial({ keywordId: true })
  .strict();

type PreviewBody = z.output<typeof previewBody>;

const matchSchema = z.object({
  keywordId: z.string().nullable().describe("The previewed keyword's id; null for a new one."),
  term: z.string().describe("The phrase (value or alias) that fired."),
  field: z.enum(["title", "text"]),
  start: z.number().int().describe("UTF-16 offset into the field."),
  end: z.number().int().describe("UTF-16 offset, exclusive."),
});

const listSchema = (what: string) =>
  z.object({
    count: z.number().int().describe(`How many of the period's stored mentions ${what}.`),
    mentions: z
      .array(z.object({ mention: mentionSchema, matches: z.array(matchSchema).describe("Where the previewed definition fires in it (empty when it no longer matches).") }))
      .describe(`The newest ${SAMPLE} of them at most, by publishedAt.`),
  });

const samplePostSchema = z.object({
  source: z.enum(SOURCES),
  sourceId: z.string().describe("The post's id on the platform."),
  url: z.string(),
  title: z.string().nullable(),
  text: z.string(),
  author: z.object({ id: z.string(), handle: z.string(), name: z.string(), followers: z.number().int().nullable() }),
  publishedAt: z.iso.datetime(),
  lang: z.string().nullable(),
  matches: z.array(matchSchema).describe("Where the definition fires in it."),
});

const liveSampleSchema = z
  .object({
    perSource: z.number().int().describe("Most posts shown per source."),
    total: z.number().int().describe("Most posts shown in all."),
    sources: z.array(
      z.object({
        source: z.enum(SOURCES),
        status: z
          .enum(["ok", "unavailable", "skipped"])
          .describe("ok: searched; unavailable: could not be searched now (reason: no credentials, rate limited, quota spent, timeout, error); skipped: not searched (reason: not a source of the definition, not enabled for the project, not searched by keyword)."),
        reason: z.string().nullable().describe("Why unavailable or skipped; null when ok."),
        simulated: z.boolean().describe("true when the source is a local simulator, not the platform."),
        found: z.number().int().describe("Posts the search page held."),
        matched: z.number().int().describe("Of them, those the definition keeps (its exclusions and filters applied)."),
        dropped: z.number().int().describe("found − matched: posts the search returned that the definition would not keep; not shown."),
        posts: z.array(samplePostSchema).describe("The newest matched posts, at most perSource (and total over all sources)."),
      }),
    ),
  })
  .describe("A live sample from the sources' search, when liveSample was true; else null. Nothing of it is stored.");

export const keywordPreviewSchema = z
  .object({
    projectId: z.string(),
    keywordId: z.string().nullable().describe("The keyword whose changes were previewed; null for a new keyword."),
    since: z.iso.datetime(),
    until: z.iso.datetime(),
    wouldMatch: listSchema("the definition matches"),
    wouldNoLongerMatch: listSchema("are attributed to the keyword now and the changed definition would not match")
      .nullable()
      .describe("For changes to an existing keyword; null for a new one."),
    alreadyMatching: z.number().int().describe("Of wouldMatch, how many are already attributed to the keyword (0 for a new one): wouldMatch.count − alreadyMatching are the ones the change adds."),
    liveSample: liveSampleSchema.nullable(),
  })
  .register(resourceSchemas, { id: "KeywordPreview", description: "What a keyword definition would match in a project's stored mentions of a period." });

/** The definition as it stands after the changes: the keyword's own fields, each given one replacing it whole. */
const mergedDefinition = async (
  body: PreviewBody,
  keyword: keywordV1.Keyword | undefined,
  enabled: () => Promise<commonV1.Source[]>,
): Promise<mentionV1.PreviewKeywordDefinition> => {
  const base = keyword && {
    value: keyword.value,
    aliases: keyword.aliases,
    excludedTerms: keyword.excludedTerms,
    caseSensitive: keyword.caseSensitive,
    filters: keyword.filters,
    groupId: keyword.groupId,
  };
  const value = body.value ?? base?.value;
  if (!value) throw validationFailed([{ path: "value", message: "is required" }]);
  const filters = (f: KeywordFilters): mentionV1.PreviewKeywordFilters => ({
    languages: f.languages ?? [],
    minFollowers: f.minFollowers,
    excludeAuthors: f.excludeAuthors ?? [],
    subreddits: f.subreddits ?? [],
    youtubeChannels: f.youtubeChannels ?? [],
    allOf: f.allOf ?? [],
  });
  return {
    value,
    aliases: body.aliases ?? base?.aliases ?? [],
    excludedTerms: body.excludedTerms ?? base?.excludedTerms ?? [],
    caseSensitive: body.caseSensitive ?? base?.caseSensitive ?? false,
    sources: body.sources ? body.sources.map((s) => wireValue(SOURCE_WORDS, s)) : (keyword?.sources ?? (await enabled())),
    filters: body.filters ? filters(body.filters) : (base?.filters ?? filters({})),
    groupId: body.groupId ?? base?.groupId ?? "",
  };
};

/** A group named for the keyword must be one of the project's, as create_keyword and update_keyword require. */
const checkGroup = async (ctx: HandlerContext, projectId: string, groupId: string | undefined) => {
  if (groupId === undefined) return;
  let cursor = "";
  do {
    const page = await ctx.backends.keyword.listKeywordGroups({ projectId, limit: 100, cursor });
    if (page.groups.some((g) => g.id === groupId)) return;
    cursor = page.nextCursor;
  } while (cursor);
  throw validationFailed([{ path: "groupId", message: "is not a keyword group of this project" }]);
};

const presentList = (l: mentionV1.PreviewMatchList | undefined, keywordId: string | null) => {
  const list = required(l, "preview list");
  return {
    count: int(list.count, "preview count"),
    mentions: list.mentions.map((h) => ({
      mention: presentMention(required(h.mention, "mention")),
      matches: h.matches.map((t) => ({ keywordId, term: t.term, field: oneOf(["title", "text"] as const, t.field, "match field"), start: t.start, end: t.end })),
    })),
  };
};

const SAMPLE_STATUSES = ["ok", "unavailable", "skipped"] as const;
const SOURCE_NAMES = SOURCES;

const sourceWord = (s: commonV1.Source) => oneOf(SOURCE_NAMES, SOURCE_WORDS.word(s) ?? "", "sample source");

const presentSample = (res: integrationV1.SampleSearchResponse, keywordId: string | null): z.output<typeof liveSampleSchema> => ({
  perSource: res.perSourceLimit,
  total: res.totalLimit,
  sources: res.sources.map((s) => ({
    source: sourceWord(s.source),
    status: oneOf(SAMPLE_STATUSES, s.status, "sample status"),
    reason: s.reason || null,
    simulated: s.simulated,
    found: s.found,
    matched: s.matched,
    dropped: s.dropped,
    posts: s.posts.map((p) => {
      const author = required(p.author, "sample author");
      return {
        source: sourceWord(p.source),
        sourceId: p.sourceId,
        url: p.url,
        title: p.title ?? null,
        text: p.text,
        author: { id: author.id, handle: author.handle, name: author.name, followers: author.followers === undefined ? null : int(author.followers, "followers") },
        publishedAt: required(p.publishedAt, "sample publishedAt").toISOString(),
        lang: p.lang ?? null,
        matches: p.matches.map((m) => ({ keywordId, term: m.term, field: oneOf(["title", "text"] as const, m.field, "match field"), start: m.start, end: m.end })),
      };
    }),
  })),
});

/**
 * The live sample: the integration service runs each source's search once for the merged definition.
 * SampleSearch is not named as a read, so the client does not retry it: a sample never costs two searches.
 */
const liveSample = async (ctx: HandlerContext, projectId: string, d: mentionV1.PreviewKeywordDefinition, keywordId: string | null) => {
  const f = d.filters;
  const res = await ctx.backends.integration.sampleSearch(
    {
      projectId,
      definition: {
        value: d.value,
        aliases: d.aliases,
        excludedTerms: d.excludedTerms,
        caseSensitive: d.caseSensitive,
        sources: d.sources,
        languages: f?.languages ?? [],
        minFollowers: f?.minFollowers,
        excludeAuthors: f?.excludeAuthors ?? [],
        subreddits: f?.subreddits ?? [],
        youtubeChannels: f?.youtubeChannels ?? [],
        allOf: f?.allOf ?? [],
        groupId: d.groupId,
      },
    },
    { deadlineMs: LIVE_DEADLINE_MS + LIVE_ANSWER_MS, ...(ctx.signal ? { signal: ctx.signal } : {}) },
  );
  return presentSample(res, keywordId);
};

export const previewKeywordOperation = defineOperation({
  name: "preview_keyword",
  title: "Preview a keyword",
  description:
    "Shows what a keyword definition would match before it is saved (viewer or above): a new keyword (create_keyword's fields, value required) or keywordId with changes (update_keyword's fields, " +
    `each replacing the keyword's own). It runs the matcher ingestion uses over the project's stored mentions published in the period (since/until, at most ${MAX_DAYS} days, default the last 7) ` +
    `and answers wouldMatch (count and the newest ${SAMPLE}, each with where the definition fires) and, for changes, wouldNoLongerMatch (mentions attributed to the keyword now that the changed definition would miss) and alreadyMatching. ` +
    "Stored mentions are the posts the project's keywords collected; saving a keyword does not re-match them, it matches what is collected from then on. " +
    `With liveSample true it also answers liveSample: for each source the definition names and the project enables that this instance can search (X, Reddit, YouTube; LinkedIn is not searched by keyword), one page of that source's search for the definition's terms, matched the same way (at most ${LIVE_PER_SOURCE} posts a source, ${LIVE_TOTAL} in all, newest first; posts the definition would not keep are counted as dropped), with each source's status (ok, unavailable with a reason, skipped). ` +
    `The sources get ${LIVE_DEADLINE_MS / 1000} s; a slower one is unavailable: timeout. A sample is one page per query the collectors would send: for a plain definition one search request per source (YouTube: one search.list, 100 of the key's daily units, and one videos.list), more with subreddit or channel filters; the platforms count it against the instance's rate limits, but it moves no cursor and takes nothing from the quota ledger or the LinkedIn allowance. ` +
    "Nothing is saved and no allowance is spent; a bad definition is the 400 create_keyword or update_keyword would answer. At most 50,000 mentions are read, newest first: meta.truncated says when the period held more.",
  method: "POST",
  path: "/keywords/preview",
  scope: "keywords:read",
  tag: "Keywords",
  output: keywordPreviewSchema,
  input: { body: previewBody },
  successStatus: 200,
  // openWorldHint: with liveSample it reaches the source platforms' search.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  meta: {
    scanned: { type: "integer", description: "Stored mentions of the period read." },
    truncated: { type: "boolean", description: "true when the period held more than the 50,000 mentions read: only those published from scannedFrom on were judged." },
    scannedFrom: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }], description: "When truncated, the publishedAt of the oldest mention read; else null." },
  },
  handler: async (input, ctx) => {
    const keyword = input.keywordId ? (await ctx.backends.keyword.getKeyword({ keywordId: input.keywordId })).keyword : undefined;
    // A keyword of another project is not this project's: the same answer as one nobody has.
    if (keyword && keyword.projectId !== input.projectId) throw notFound("Keyword");
    const definition = await mergedDefinition(input, keyword, async () => {
      const { project } = await ctx.backends.project.getProject({ projectId: input.projectId });
      return project?.enabledSources ?? [];
    });
    await checkGroup(ctx, input.projectId, input.groupId);
    const keywordId = input.keywordId ?? null;
    // The stored part and the live sample are independent reads of two services: run side by side.
    const [res, sample] = await Promise.all([
      ctx.backends.mention.previewKeyword({
        projectId: input.projectId,
        keywordId: input.keywordId ?? "",
        definition,
        since: input.since ? new Date(input.since) : undefined,
        until: input.until ? new Date(input.until) : undefined,
        sampleSize: SAMPLE,
      }),
      input.liveSample ? liveSample(ctx, input.projectId, definition, keywordId) : Promise.resolve(null),
    ]);
    return {
      data: {
        projectId: input.projectId,
        keywordId,
        since: (res.since ?? new Date(0)).toISOString(),
        until: (res.until ?? new Date(0)).toISOString(),
        wouldMatch: presentList(res.wouldMatch, keywordId),
        wouldNoLongerMatch: res.wouldNoLongerMatch ? presentList(res.wouldNoLongerMatch, keywordId) : null,
        alreadyMatching: int(res.alreadyMatching, "alreadyMatching"),
        liveSample: sample,
      },
      meta: { scanned: int(res.scanned, "scanned"), truncated: res.truncated, scannedFrom: res.scannedFrom ? res.scannedFrom.toISOString() : null },
    };
  },
});
