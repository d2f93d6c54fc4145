import { type Clock, newId, notFound, type Outbox, validationFailed } from "@earshot/platform";
import type { ProjectCollections, ProjectDoc } from "../store";
import { PROJECTS } from "../store";
import { checkProjectFields, DIGEST_HOUR, PROJECT_DEFAULTS, type ProjectFields, type ProjectRole, type Source } from "./project-rules";

export interface Caller {
  userId: string;
  workspaceId: string;
}

export interface ProjectDeps {
  collections: ProjectCollections;
  outbox: Outbox;
  clock: Clock;
}

export interface ProjectView {
  project: ProjectDoc;
  role: ProjectRole;
}

export const requireCaller = (caller: Partial<Caller> | undefined): Caller => {
  if (!caller?.userId || !caller.workspaceId) throw validationFailed([{ path: "caller", message: "userId and workspaceId are required" }]);
  return { userId: caller.userId, workspaceId: caller.workspaceId };
};

/** The caller's role in a project, or null when they cannot see it at all. */
export const roleOf = async (deps: ProjectDeps, project: ProjectDoc, caller: Caller): Promise<ProjectRole | null> => {
  if (project.ownerId === caller.userId) return "owner";
  const member = await deps.collections.members.findOne({ projectId: project._id, userId: caller.userId });
  return member ? member.role : null;
};

/** Loads a project the caller can see; anything else is not found, so existence is never revealed. */
export const loadVisibleProject = async (deps: ProjectDeps, caller: Caller, projectId: string): Promise<ProjectView> => {
  const project = await deps.collections.projects.findById(projectId);
  const role = project ? await roleOf(deps, project, caller) : null;
  if (!project || !role) throw notFound("Project");
  return { project, role };
};

export const createProject = async (deps: ProjectDeps, caller: Caller, input: ProjectFields & { name: string }): Promise<ProjectView> => {
  const errors = checkProjectFields(input);
  if (errors.length > 0) throw validationFailed(errors);
  const now = deps.clock.now();
  const project: ProjectDoc = {
    _id: newId("prj", now.getTime()),
    workspaceId: caller.workspaceId,
    ownerId: caller.userId,
    name: input.name.trim(),
    description: input.description ?? PROJECT_DEFAULTS.description,
    color: input.color ?? PROJECT_DEFAULTS.color,
    icon: input.icon ?? PROJECT_DEFAULTS.icon,
    enabledSources: (input.enabledSources as Source[] | undefined) ?? [...PROJECT_DEFAULTS.enabledSources],
    status: "active",
    digestTimezone: input.digestTimezone ?? PROJECT_DEFAULTS.digestTimezone,
    digest: { enabled: true, hour: DIGEST_HOUR },
    createdAt: now,
    updatedAt: now,
    _v: 1,
  };
  await deps.outbox.commit(
    [{ kind: "insert", collection: PROJECTS, doc: project }],
    [
      {
        type: "project.created",
        source: "earshot/project",
        subject: project._id,
        key: project._id,
        data: { projectId: project._id, workspaceId: project.workspaceId, ownerId: project.ownerId, name: project.name },
      },
    ],
  );
  return { project, role: "owner" };
};
