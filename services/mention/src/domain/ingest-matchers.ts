import { keywordFromEvent, type LiveKeyword, type KeywordMatcher, LiveMatchers, type MatcherKeyword } from "@earshot/contracts/matcher";
import type { KeywordCopyDoc } from "../store";
import type { MentionDeps } from "./deps";

// The keyword matchers of one process. Each project's matcher is loaded from the keyword copies on its
// first post and then kept current without reading them again: every keyword event written to the copies
// also moves the project's `keywordsRevision` on, and
// - the process that wrote it applies the event to its matcher when it held the revision just before
//   (so it missed nothing in between), which is the common case and costs no read;
// - any process that sees, in the project state it reads once per batch anyway, a revision newer than
//   the one its matcher was built at reloads that project's keywords once.
// On Kafka the replicas of the service share the keyword consumer group, so each sees only some keyword
// events; the revision is what lets the others notice. Posts never compile a matcher: a change marks the
// project and its next post compiles once (LiveMatchers).

export const matcherKeywordOf = (k: KeywordCopyDoc): MatcherKeyword =>
  keywordFromEvent({
    keywordId: k._id,
    groupId: k.groupId,
    value: k.value,
    sources: k.sources,
    aliases: k.aliases,
    excludedTerms: k.excludedTerms,
    filters: k.filters as MatcherKeyword["filters"],
    caseSensitive: k.caseSensitive,
    active: k.active,
  });

export class ProjectMatchers {
  readonly live = new LiveMatchers();
  /** The keywordsRevision each loaded project's matcher reflects. */
  private readonly revisions = new Map<string, number>();
  private loadCount = 0;

  /** Loads from the keyword copies so far (a first post of a project, or a change made elsewhere). */
  get loads(): number {
    return this.loadCount;
  }

  /** The project's matcher, reloaded first when the copies are at a newer revision than it reflects. */
  async matcherFor(deps: Pick<MentionDeps, "collections">, projectId: string, revision: number): Promise<KeywordMatcher> {
    if (!this.isCurrent(projectId, revision)) {
      const keywords = await deps.collections.keywords.find({ projectId, active: true });
      // A change applied while the read ran is newer than what the read may have seen: keep it.
      if (!this.isCurrent(projectId, revision)) {
        this.live.load(projectId, keywords.map(matcherKeywordOf));
        this.revisions.set(projectId, revision);
        this.loadCount += 1;
      }
    }
    return this.live.matcherFor(projectId) as KeywordMatcher;
  }

  /** After this process wrote a keyword event to the copies, moving the project to `revision`. */
  applied(type: string, data: LiveKeyword, revision: number): void {
    if (this.revisions.get(data.projectId) !== revision - 1 || !this.live.has(data.projectId)) return;
    this.live.apply(type, data);
    this.revisions.set(data.projectId, revision);
  }

  /** Forgets a project (archived): its posts are never matched again. */
  drop(projectId: string): void {
    this.live.drop(projectId);
    this.revisions.delete(projectId);
  }

  private isCurrent(projectId: string, revision: number): boolean {
    const known = this.revisions.get(projectId);
    return known !== undefined && known >= revision && this.live.has(projectId);
  }
}
