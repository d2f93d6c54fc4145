import type { Collection, Doc } from "../store/port";

// A service's copy of each project, kept from the project service's `project.*` events: the part every
// consumer keeps (workspace, status) and the rules they all follow, written once. Archived is final: a late
// or replayed event never brings a project back. An account deactivation reaches consumers as its owner's
// projects paused, so it stops their work like any pause. A service's copy may hold more (its own fields,
// set from the same events); its own side effects (default groups, the Daily Digest, pollers) stay in the
// service. The event is read by shape, so the platform needs no service's catalog.

export const PROJECT_COPY_STATUSES = ["active", "paused", "archived"] as const;
export type ProjectCopyStatus = (typeof PROJECT_COPY_STATUSES)[number];

export const isProjectCopyStatus = (s: string): s is ProjectCopyStatus => (PROJECT_COPY_STATUSES as readonly string[]).includes(s);

/** What every service keeps of a project; a service's own copy extends it. `_id` is the project id. */
export interface ProjectCopyDoc extends Doc {
  workspaceId: string;
  status: ProjectCopyStatus;
  updatedAt: Date;
}

/** A project event as this helper reads it (the `project.*` types of `@earshot/contracts/events`). */
export interface ProjectEventShape {
  type: string;
  data: { projectId: string; workspaceId: string; status?: string };
}

/** What a project event says of the project's state, or undefined when it is not about it (another type, no ids). */
export interface ProjectChange {
  projectId: string;
  workspaceId: string;
  /** The status it now has; undefined when an update did not say (or said a word this build does not know). */
  status?: ProjectCopyStatus;
}

export const projectChangeOf = (event: ProjectEventShape): ProjectChange | undefined => {
  const { projectId, workspaceId } = event.data;
  if (!projectId || !workspaceId) return undefined;
  switch (event.type) {
    case "project.created":
      return { projectId, workspaceId, status: "active" };
    case "project.updated": {
      const status = event.data.status ?? "";
      return isProjectCopyStatus(status) ? { projectId, workspaceId, status } : { projectId, workspaceId };
    }
    case "project.archived":
      return { projectId, workspaceId, status: "archived" };
    default:
      return undefined;
  }
};

export interface ApplyProjectChange<T extends ProjectCopyDoc> {
  /** The service's own fields the event carries; undefined and empty strings leave the copy's as they are. */
  fields?: Partial<Omit<T, "_id" | "_v" | "workspaceId" | "status" | "updatedAt">>;
  /** What a project first heard of starts with (its created event may have been missed): `active`, and these. */
  defaults?: Partial<Omit<T, "_id" | "_v" | "workspaceId" | "updatedAt">>;
  now: Date;
}

/**
 * Applies a change to a service's copy: the workspace, the status when said, the service's own fields.
 * Returns the copy's status after it, or undefined when the project was archived already (nothing written).
 */
export const applyProjectChange = async <T extends ProjectCopyDoc>(projects: Collection<T>, change: ProjectChange, options: ApplyProjectChange<T>): Promise<ProjectCopyStatus | undefined> => {
  const current = await projects.findById(change.projectId);
  if (current?.status === "archived") return undefined;
  const defined = Object.fromEntries(Object.entries(options.fields ?? {}).filter(([, v]) => v !== undefined && v !== ""));
  const start = current ? {} : { status: "active", ...options.defaults };
  const set = { ...start, ...defined, workspaceId: change.workspaceId, ...(change.status ? { status: change.status } : {}), updatedAt: options.now };
  await projects.updateOne({ _id: change.projectId }, { $set: set }, { upsert: true });
  return change.status ?? current?.status ?? "active";
};
