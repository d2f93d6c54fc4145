import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { ProjectRole, ProjectStatus, Source } from "./domain/project-rules";

export interface ProjectDoc extends Doc {
  workspaceId: string;
  ownerId: string;
  name: string;
  description: string;
  color: string;
  icon: string;
  enabledSources: Source[];
  status: ProjectStatus;
  digestTimezone: string;
  /** The Daily Digest every new project gets: 8 AM in digestTimezone, to the workspace owner. */
  digest: { enabled: boolean; hour: number };
  createdAt: Date;
  updatedAt: Date;
}

export interface MemberDoc extends Doc {
  projectId: string;
  userId: string;
  role: Exclude<ProjectRole, "owner">;
  createdAt: Date;
}

export interface ProjectCollections {
  projects: Collection<ProjectDoc>;
  members: Collection<MemberDoc>;
}

export const PROJECTS = "projects";
export const MEMBERS = "members";

export const openProjectCollections = async (store: DocumentStore): Promise<ProjectCollections> => {
  const projects = store.collection<ProjectDoc>(PROJECTS);
  const members = store.collection<MemberDoc>(MEMBERS);
  await projects.ensureIndex({ fields: { ownerId: 1 } });
  await members.ensureIndex({ fields: { projectId: 1, userId: 1 }, unique: true });
  await members.ensureIndex({ fields: { userId: 1 } });
  return { projects, members };
};
