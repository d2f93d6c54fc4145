import { compileMatcher, keywordFromEvent, type KeywordMatcher } from "@earshot/contracts/matcher";
import type { CollectedPost } from "../collectors/collector";
import type { IntegrationCollections } from "../store";

// Which projects a firehose post is for: one matcher over the active keywords on Bluesky of every active
// project that enables Bluesky (the keyword ids say whose), compiled from the service's copies of projects
// and keywords. The same matcher the mention service applies, so a post handed on here is one it keeps.

export interface StreamMatcher {
  /** Keywords matched against; 0 means no project listens, and the stream need not be read. */
  readonly keywords: number;
  /** The projects whose keywords the post matches, each once. */
  projectsFor(post: CollectedPost): string[];
}

export const compileStreamMatcher = async (collections: IntegrationCollections): Promise<StreamMatcher> => {
  const projects = await collections.projects.find({ status: "active", enabledSources: "bluesky" });
  const listening = new Set(projects.map((p) => p._id));
  const keywords = (await collections.keywords.find({ active: true, sources: "bluesky" })).filter((k) => listening.has(k.projectId));
  const owner = new Map(keywords.map((k) => [k._id, k.projectId]));
  const matcher: KeywordMatcher = compileMatcher(
    keywords.map((k) =>
      keywordFromEvent({
        keywordId: k._id,
        groupId: k.projectId,
        value: k.value,
        sources: k.sources,
        aliases: k.aliases,
        excludedTerms: k.excludedTerms,
        filters: k.filters,
        caseSensitive: k.caseSensitive,
      }),
    ),
  );
  return {
    keywords: keywords.length,
    projectsFor: (post) => {
      if (keywords.length === 0) return [];
      const hits = matcher.match(post);
      return hits.length === 0 ? [] : [...new Set(hits.map((h) => owner.get(h.keywordId)!))];
    },
  };
};
