import { ACCOUNT_EVENTS } from "@earshot/account/events";
import { KEYWORD_EVENTS, type KeywordEvent } from "@earshot/keyword/events";
import { type ServiceDeps, type Subscription, subscribeDomainEvents } from "@earshot/platform";
import { PROJECT_EVENTS, type ProjectEvent } from "@earshot/project/events";
import type { IntegrationDeps } from "./domain/deps";
import { handleKeywordEvents, handleProjectEvent } from "./domain/replicas";
import { handleLinkedinAccountEvent, handleLinkedinProjectEvent } from "./domain/linkedin-lifecycle";

// What the integration service consumes, each group from the earliest retained event, each event handled
// once: project events into the project replicas (and LinkedIn disconnection on archival), keyword
// events into the keyword replicas, and account deactivation (its owner's LinkedIn connections end).

export const GROUPS = {
  projects: "integration.project-events",
  keywords: "integration.keyword-events",
  accounts: "integration.account-events",
} as const;

/** Most keyword events applied before their projects are reconciled. */
const KEYWORD_BATCH = 200;

/** Told when a replica change may start or stop pollers, so the scheduler acts at once. */
export type ReplicaChanged = (projectId: string) => void;

export const startIntegrationConsumers = async (
  host: Pick<ServiceDeps, "bus" | "store" | "clock" | "logger">,
  deps: IntegrationDeps,
  changed: ReplicaChanged,
): Promise<Subscription[]> => {
  const common = { bus: host.bus, store: host.store, clock: host.clock, logger: host.logger, startFrom: "earliest" as const };
  const subscriptions: Subscription[] = [];
  const onProject = async (event: ProjectEvent) => {
    await handleProjectEvent(deps, event);
    await handleLinkedinProjectEvent(deps, event);
    if (event.data.projectId) changed(event.data.projectId);
  };
  const onKeywords = async (events: KeywordEvent[]) => {
    await handleKeywordEvents(deps, events);
    for (const projectId of new Set(events.map((e) => e.data.projectId))) if (projectId) changed(projectId);
  };
  try {
    subscriptions.push(
      await subscribeDomainEvents({ ...common, groupId: GROUPS.projects, events: PROJECT_EVENTS, handle: onProject }),
      // In batches: a project's keywords created together reconcile its pollers once.
      await subscribeDomainEvents({ ...common, groupId: GROUPS.keywords, events: KEYWORD_EVENTS, batch: { maxBatch: KEYWORD_BATCH, handle: onKeywords } }),
      await subscribeDomainEvents({ ...common, groupId: GROUPS.accounts, events: ACCOUNT_EVENTS, types: ["user.deactivated"], handle: (event) => handleLinkedinAccountEvent(deps, event) }),
    );
  } catch (err) {
    await Promise.all(subscriptions.map((s) => s.stop()));
    throw err;
  }
  return subscriptions;
};
