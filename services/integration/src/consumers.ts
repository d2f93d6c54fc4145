import { type CloudEvent, type ServiceDeps, type Subscription, subscribeEvents } from "@earshot/platform";
import type { IntegrationDeps } from "./domain/deps";
import { handleKeywordEvent, handleProjectEvent } from "./domain/replicas";
import { handleLinkedinAccountEvent, handleLinkedinProjectEvent } from "./domain/linkedin-lifecycle";

// What the integration service consumes, each group from the earliest retained event, each event handled
// once: project events into the project replicas (and LinkedIn disconnection on archival), keyword
// events into the keyword replicas, and account deactivation (its owner's LinkedIn connections end).

export const GROUPS = {
  projects: "integration.project-events",
  keywords: "integration.keyword-events",
  accounts: "integration.account-events",
} as const;

/** Told when a replica change may start or stop pollers, so the scheduler acts at once. */
export type ReplicaChanged = (projectId: string) => void;

export const startIntegrationConsumers = async (
  host: Pick<ServiceDeps, "bus" | "store" | "clock" | "logger">,
  deps: IntegrationDeps,
  changed: ReplicaChanged,
): Promise<Subscription[]> => {
  const common = { bus: host.bus, store: host.store, clock: host.clock, logger: host.logger, startFrom: "earliest" as const };
  const subscriptions: Subscription[] = [];
  const onProject = async (event: CloudEvent) => {
    await handleProjectEvent(deps, event);
    await handleLinkedinProjectEvent(deps, event);
    const projectId = (event.data as { projectId?: unknown } | undefined)?.projectId;
    if (typeof projectId === "string") changed(projectId);
  };
  const onKeyword = async (event: CloudEvent) => {
    await handleKeywordEvent(deps, event);
    const projectId = (event.data as { projectId?: unknown } | undefined)?.projectId;
    if (typeof projectId === "string") changed(projectId);
  };
  try {
    subscriptions.push(
      await subscribeEvents({ ...common, groupId: GROUPS.projects, topics: ["earshot.project.v1"], handle: onProject }),
      await subscribeEvents({ ...common, groupId: GROUPS.keywords, topics: ["earshot.keyword.v1"], handle: onKeyword }),
      await subscribeEvents({ ...common, groupId: GROUPS.accounts, topics: ["earshot.account.v1"], handle: (event) => handleLinkedinAccountEvent(deps, event) }),
    );
  } catch (err) {
    await Promise.all(subscriptions.map((s) => s.stop()));
    throw err;
  }
  return subscriptions;
};
