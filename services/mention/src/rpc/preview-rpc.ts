import { type AsyncService, enumWordOf, requireProjectCaller, SOURCE_WORDS, validationFailed } from "@earshot/platform";
import type { mentionV1 } from "@earshot/proto";
import type { MentionDeps } from "../domain/deps";
import { type PreviewDefinition, type PreviewList, previewKeyword } from "../domain/preview";
import { toMentionMessage } from "../mention-message";

// gRPC adapter of the keyword preview (domain/preview.ts). The edge has validated the definition with the
// keyword service's field rules; a request without one is a caller's mistake, refused naming it.

export type PreviewService = Pick<AsyncService<mentionV1.MentionServiceServer>, "previewKeyword">;

const definitionOf = (d: mentionV1.PreviewKeywordDefinition | undefined): PreviewDefinition => {
  if (!d?.value) throw validationFailed([{ path: "value", message: "is required" }]);
  const f = d.filters;
  const list = (l: string[] | undefined) => (l?.length ? [...l] : undefined);
  return {
    value: d.value,
    aliases: [...d.aliases],
    excludedTerms: [...d.excludedTerms],
    caseSensitive: d.caseSensitive,
    sources: d.sources.map((s) => enumWordOf(SOURCE_WORDS, s)),
    filters: {
      languages: list(f?.languages),
      minFollowers: f?.minFollowers,
      excludeAuthors: list(f?.excludeAuthors),
      subreddits: list(f?.subreddits),
      youtubeChannels: list(f?.youtubeChannels),
      allOf: list(f?.allOf),
    },
    groupId: d.groupId || undefined,
  };
};

const toListMessage = (l: PreviewList): mentionV1.PreviewMatchList => ({
  count: String(l.count),
  mentions: l.mentions.map((h) => ({ mention: toMentionMessage(h.mention), matches: h.matches.map((t) => ({ ...t })) })),
});

export const previewRpc = (deps: MentionDeps): PreviewService => ({
  previewKeyword: async (req, ctx) => {
    const result = await previewKeyword(deps, requireProjectCaller(ctx), {
      projectId: req.projectId,
      definition: definitionOf(req.definition),
      keywordId: req.keywordId || undefined,
      since: req.since,
      until: req.until,
      sampleSize: req.sampleSize || undefined,
    });
    return {
      wouldMatch: toListMessage(result.wouldMatch),
      wouldNoLongerMatch: result.wouldNoLongerMatch && toListMessage(result.wouldNoLongerMatch),
      alreadyMatching: String(result.alreadyMatching),
      scanned: String(result.scanned),
      truncated: result.truncated,
      scannedFrom: result.scannedFrom,
      since: result.since,
      until: result.until,
    };
  },
});
