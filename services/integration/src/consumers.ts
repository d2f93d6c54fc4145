import { ACCOUNT_EVENTS, KEYWORD_EVENTS, type KeywordEvent, PROJECT_EVENTS, type ProjectEvent } from "@earshot/contracts/events";
import { consume, consumeBatches } from "@earshot/platform";
import type { IntegrationDeps } from "./domain/deps";
import { handleKeywordEvents, handleProjectEvent } from "./domain/copies";
import { handleOwnerEvent } from "./domain/feeds";
import { handleLinkedinAccountEvent, handleLinkedinProjectEvent } from "./domain/linkedin-lifecycle";

// What the integration service consumes, each group from the earliest retained event, each event handled
// once: project events into the project copies (and LinkedIn disconnection on archival), keyword
// events into the keyword copies, and account deactivation (its owner's LinkedIn connections end).

export const GROUPS = {
  projects: "integration.project-events",
  keywords: "integration.keyword-events",
  accounts: "integration.account-events",
} as const;

/** Most keyword events applied before their projects are reconciled. */
const KEYWORD_BATCH = 200;

/** Told when a copy's change may start or stop pollers, so the scheduler acts at once. */
export type CopyChanged = (projectId: string) => void;

/** What the consumers act on: the domain, and the scheduler's ear for copies' changes. */
export interface IntegrationConsumerDomain {
  deps: IntegrationDeps;
  changed: CopyChanged;
}

const onProject = async ({ deps, changed }: IntegrationConsumerDomain, event: ProjectEvent) => {
  await handleProjectEvent(deps, event);
  await handleLinkedinProjectEvent(deps, event);
  if (event.data.projectId) changed(event.data.projectId);
};

const onKeywords = async ({ deps, changed }: IntegrationConsumerDomain, events: KeywordEvent[]) => {
  await handleKeywordEvents(deps, events);
  for (const projectId of new Set(events.map((e) => e.data.projectId))) if (projectId) changed(projectId);
};

/** The integration service's consumers, each from the earliest retained event: the host subscribes and stops them. */
export const INTEGRATION_CONSUMERS = [
  consume(PROJECT_EVENTS, { group: GROUPS.projects, handle: onProject }),
  // In batches: a project's keywords created together reconcile its pollers once.
  consumeBatches([KEYWORD_EVENTS], { group: GROUPS.keywords, maxBatch: KEYWORD_BATCH, handle: onKeywords }),
  consume(ACCOUNT_EVENTS, {
    group: GROUPS.accounts,
    types: ["user.created", "user.deactivated"],
    handle: async ({ deps }: IntegrationConsumerDomain, event) => {
      await handleOwnerEvent(deps, event);
      await handleLinkedinAccountEvent(deps, event);
    },
  }),
];
