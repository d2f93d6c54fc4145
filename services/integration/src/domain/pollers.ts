import { isUniqueViolation, SOURCES, type Source } from "@earshot/platform/core";
import { type KeywordCopyDoc, type LinkedinConnectionDoc, type PollerDoc, pollerId, type ProjectCopyDoc } from "../store";
import type { IntegrationDeps } from "./deps";

// Which (project, source) pollers run: a poller is enabled while the project is active, the source is
// among its enabled sources, the source's collector has credentials, an active keyword includes the
// source, and (LinkedIn only) a Page of the project's connection is selected. Reconciling writes only
// what changed, so an unchanged poller keeps its version and a poll in flight is not disturbed; a change
// moves the version on, so a poll in flight when its poller is disabled cannot commit (poll.ts).

export interface PollerFacts {
  project: ProjectCopyDoc | null;
  keywords: KeywordCopyDoc[];
  linkedin: LinkedinConnectionDoc | null;
  /** How many feeds the project reads (the rss source has nothing to fetch without one). */
  feeds: number;
}

/** Why a source is not collected, or null when it is. */
export const idleReason = (deps: IntegrationDeps, facts: PollerFacts, source: Source): string | null => {
  const { project } = facts;
  if (!project || project.status !== "active") return "project not active";
  if (!project.enabledSources.includes(source)) return "source not enabled for the project";
  if (!deps.collectors[source].configured) return "no credentials configured";
  if (!facts.keywords.some((k) => k.active && k.sources.includes(source))) return "no active keyword on this source";
  if (source === "linkedin" && !(facts.linkedin?.status === "connected" && facts.linkedin.page)) return "no LinkedIn Page selected";
  if (source === "rss" && facts.feeds === 0) return "no feed added (create_feed)";
  return null;
};

export const readPollerFacts = async (deps: IntegrationDeps, projectId: string): Promise<PollerFacts> => {
  const [project, keywords, linkedin, feeds] = await Promise.all([
    deps.collections.projects.findById(projectId),
    deps.collections.keywords.find({ projectId, active: true }),
    deps.collections.linkedin.findById(projectId),
    deps.collections.feeds.count({ projectId }),
  ]);
  return { project, keywords, linkedin, feeds };
};

const setEnabled = async (deps: IntegrationDeps, projectId: string, source: Source, enabled: boolean): Promise<void> => {
  const id = pollerId(projectId, source);
  const now = deps.clock.now();
  for (;;) {
    const current = await deps.collections.pollers.findById(id);
    if (!current) {
      // A poller is only created to run; a source never collected needs no document.
      if (!enabled) return;
      try {
        await deps.collections.pollers.insertOne({ _id: id, projectId, source, enabled: true, nextPollAt: now, recentIds: [], updatedAt: now });
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        continue; // another replica created it at the same moment: reconcile what it wrote
      }
    }
    if (current.enabled === enabled) return;
    // Starts at once, unless the provider told this poller to wait (a backoff outlives a pause).
    const backoff = current.backoffUntil && current.backoffUntil > now ? current.backoffUntil : undefined;
    // The lease goes with the change: the version moves on, so a poll still running under it can neither
    // commit nor release it, and a lease left behind would keep the poller from running again until it
    // ran out (up to LEASE_MS after a pause and resume).
    const lease = { leaseOwner: undefined, leaseUntil: undefined };
    const fields: Partial<PollerDoc> = enabled ? { enabled, nextPollAt: backoff ?? now, ...lease, updatedAt: now } : { enabled, ...lease, updatedAt: now };
    const result = await deps.collections.pollers.updateOne({ _id: id, enabled: current.enabled }, { $set: fields });
    if (result.matchedCount === 1) return;
  }
};

/**
 * Brings the project's four pollers in line with what the copies say. Call after anything that may
 * start or stop collection: a project or keyword event, a LinkedIn Page selected or disconnected.
 * Answers the facts it reconciled with.
 */
export const reconcileProject = async (deps: IntegrationDeps, projectId: string): Promise<PollerFacts> => {
  const facts = await readPollerFacts(deps, projectId);
  for (const source of SOURCES) await setEnabled(deps, projectId, source, idleReason(deps, facts, source) === null);
  return facts;
};
