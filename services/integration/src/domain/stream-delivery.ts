import { isVersionConflict, type Source } from "@earshot/platform/core";
import type { CollectedPost } from "../collectors/collector";
import { type PollerDoc, pollerId } from "../store";
import type { IntegrationDeps } from "./deps";
import { commitFound, lagsOf, RECENT_IDS_KEPT } from "./poll";

// Posts a live stream found for a project (Bluesky's firehose), handed on as a poll's are: one
// post.collected per post the poller has not emitted yet, a poll record for the day's figures (posts
// found, detection lag), and the poller's recent ids and last success, in ONE unit of work that replaces
// the poller at its version. A poller that is not enabled (project paused, source or keyword gone) takes
// nothing; a racing write (a first search's commit, a pause) is read again and the posts placed again.

const ATTEMPTS = 5;

/** How many of `posts` were new for the project's poller and emitted. */
export const deliverStreamed = async (deps: IntegrationDeps, projectId: string, source: Source, posts: readonly CollectedPost[]): Promise<number> => {
  for (let attempt = 1; ; attempt++) {
    const poller = await deps.collections.pollers.findById(pollerId(projectId, source));
    if (!poller?.enabled) return 0;
    const seen = new Set(poller.recentIds);
    const fresh = posts.filter((p) => !seen.has(p.sourceId) && (seen.add(p.sourceId), true));
    if (fresh.length === 0) return 0;
    try {
      await commitStreamed(deps, poller, fresh);
      return fresh.length;
    } catch (err) {
      if (!isVersionConflict(err) || attempt >= ATTEMPTS) throw err;
    }
  }
};

const commitStreamed = async (deps: IntegrationDeps, poller: PollerDoc, posts: CollectedPost[]): Promise<void> => {
  const at = deps.clock.now();
  const next: PollerDoc = {
    ...poller,
    recentIds: [...poller.recentIds, ...posts.map((p) => p.sourceId)].slice(-RECENT_IDS_KEPT),
    lastSuccessAt: at,
    updatedAt: at,
  };
  await commitFound(deps, poller, next, posts, at, lagsOf(posts, at));
};
