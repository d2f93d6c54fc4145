// Keyword matching, shared by the services that compile keywords and the ones that match posts.
// Pure TypeScript with no imports outside this folder. Semantics: README.md beside this file.
export { canonicalPhrase, collapseSpaces } from "./canonical";
export { compileMatcher } from "./compile-matcher";
export {
  compareTermMatches,
  type KeywordHit,
  type KeywordMatcher,
  MAX_MATCHES_PER_KEYWORD,
  type MatchablePost,
  type MatcherKeyword,
  type MatchField,
  type MatchSource,
  type TermMatch,
} from "./types";
export { type LiveKeyword, keywordFromEvent, LiveMatchers } from "./live-matchers";
