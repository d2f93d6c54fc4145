import { isVersionConflict, type Source, type Write } from "@earshot/platform/core";
import { randomUUID } from "node:crypto";
import type { CollectedPost } from "../collectors/collector";
import { postCollectedEvent } from "../events";
import { POLL_RECORDS, POLLERS, type PollerDoc, pollerId, type PollRecordDoc } from "../store";
import type { IntegrationDeps } from "./deps";
import { RECENT_IDS_KEPT } from "./poll";

// Posts a live stream found for a project (Bluesky's firehose), handed on as a poll's are: one
// post.collected per post the poller has not emitted yet, a poll record for the day's figures (posts
// found, detection lag), and the poller's recent ids and last success, in ONE unit of work that replaces
// the poller at its version. A poller that is not enabled (project paused, source or keyword gone) takes
// nothing; a racing write (a first search's commit, a pause) is read again and the posts placed again.

const DAY_MS = 24 * 3600 * 1000;
const ATTEMPTS = 5;
const LAGS_KEPT = 500;

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
  const record: PollRecordDoc = {
    _id: `${poller._id}:${at.getTime()}:${randomUUID().slice(0, 8)}`,
    pollerId: poller._id,
    projectId: poller.projectId,
    source: poller.source,
    at,
    found: posts.length,
    lagsMs: posts
      .map((p) => Math.max(0, at.getTime() - Date.parse(p.publishedAt)))
      .filter((lag) => Number.isFinite(lag))
      .slice(0, LAGS_KEPT),
    expiresAt: new Date(at.getTime() + DAY_MS),
  };
  const writes: Write[] = [
    { kind: "replace", collection: POLLERS, doc: next, expectedVersion: poller._v ?? 1 },
    { kind: "insert", collection: POLL_RECORDS, doc: record },
  ];
  await deps.outbox.commit(
    writes,
    posts.map((p) => postCollectedEvent(poller.projectId, p, at)),
  );
};
