import { type AsyncService, notFound, requireProjectCaller, SOURCE_WORDS, validationFailed } from "@earshot/platform";
import type { commonV1, integrationV1 } from "@earshot/proto";
import type { IntegrationDeps } from "../domain/deps";
import { SAMPLE_PER_SOURCE, SAMPLE_TOTAL, sampleSearch, type SourceSample } from "../domain/sample";

// gRPC adapter for preview_keyword's live sample: decode, call the domain verb, encode. The definition
// was checked by the edge with the keyword service's field module; this only refuses what it cannot read.

type Handlers = Pick<AsyncService<integrationV1.IntegrationServiceServer>, "sampleSearch">;

const toMessage = (s: SourceSample): integrationV1.SourceSample => ({
  source: SOURCE_WORDS.value(s.source) ?? (0 as commonV1.Source),
  status: s.status,
  reason: s.reason,
  found: s.found,
  matched: s.matched,
  dropped: s.dropped,
  simulated: s.simulated,
  posts: s.posts.map(({ post, matches }) => ({
    source: SOURCE_WORDS.value(post.source) ?? (0 as commonV1.Source),
    sourceId: post.sourceId,
    url: post.url,
    title: post.title,
    text: post.text,
    author: { id: post.author.id, handle: post.author.handle, name: post.author.name, followers: post.author.followers === undefined ? undefined : String(post.author.followers) },
    publishedAt: new Date(post.publishedAt),
    lang: post.lang,
    subreddit: post.subreddit,
    channelHandle: post.channelHandle,
    matches: matches.map((m) => ({ term: m.term, field: m.field, start: m.start, end: m.end })),
  })),
});

export const sampleRpc = (deps: IntegrationDeps): Handlers => ({
  sampleSearch: async (req, ctx) => {
    // An empty id names nothing: the same answer as an id nobody has.
    if (!req.projectId) throw notFound("Project");
    const d = req.definition;
    if (!d?.value) throw validationFailed([{ path: "value", message: "is required" }]);
    const sources = d.sources.map((s) => SOURCE_WORDS.word(s));
    if (sources.some((s) => s === undefined)) throw validationFailed([{ path: "sources", message: "names an unknown source" }]);
    const samples = await sampleSearch(deps, requireProjectCaller(ctx), req.projectId, {
      value: d.value,
      aliases: d.aliases,
      excludedTerms: d.excludedTerms,
      caseSensitive: d.caseSensitive,
      sources: sources as NonNullable<(typeof sources)[number]>[],
      groupId: d.groupId,
      filters: {
        languages: d.languages,
        minFollowers: d.minFollowers,
        excludeAuthors: d.excludeAuthors,
        subreddits: d.subreddits,
        youtubeChannels: d.youtubeChannels,
        allOf: d.allOf,
      },
    });
    return { sources: samples.map(toMessage), perSourceLimit: SAMPLE_PER_SOURCE, totalLimit: SAMPLE_TOTAL };
  },
});
