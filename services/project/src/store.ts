import type { Collection, Doc, DocumentStore } from "@earshot/platform";
import type { ProjectRole, ProjectStatus, Source } from "./domain/project-rules";

export interface PublicDashboardDoc {
  enabled: boolean;
  /** Assigned on first enable and kept while disabled, so the share URL stays reserved. */
  shareId?: string;
  description: string;
  websiteUrl?: string;
  /** The public dashboard shows only mentions scoring at least this; absent: every mention. */
  minRelevance?: number;
}

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
  /**
   * Projects created before the Daily Digest became the alert service's rule (with its hour) carry
   * `digest: { enabled, hour }`, never read: the alert service's `daily_digest` rule is the digest.
   */
  publicDashboard: PublicDashboardDoc;
  /** Set when the owner's deactivation paused the project, so reactivation resumes exactly these. */
  pausedByDeactivation?: boolean;
  /**
   * Set by the write that staged this project's `project.dashboard_changed`, so the start-up announcement
   * of dashboards enabled before that event existed passes over it (see domain/dashboard-announcement.ts).
   */
  dashboardAnnounced?: boolean;
  createdAt: Date;
  updatedAt: Date;
  archivedAt?: Date;
}

/** A membership (`mbr_…`) or a pending invitation (`inv_…`): one collection so one cursor pages both. */
export interface MemberDoc extends Doc {
  memberType: "member" | "invite";
  projectId: string;
  workspaceId: string;
  email: string;
  role: ProjectRole;
  createdAt: Date;
  // memberships
  userId?: string;
  name?: string;
  /** `<projectId>:<userId>`, unique: one membership per person and project. */
  memberKey?: string;
  // invitations
  tokenHash?: string;
  status?: "pending" | "accepted" | "revoked";
  expiresAt?: Date;
  invitedBy?: string;
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
  await projects.ensureIndex({ fields: { workspaceId: 1 } });
  await projects.ensureIndex({ fields: { "publicDashboard.shareId": 1 }, unique: true, sparse: true });
  await members.ensureIndex({ fields: { memberKey: 1 }, unique: true, sparse: true });
  await members.ensureIndex({ fields: { tokenHash: 1 }, unique: true, sparse: true });
  await members.ensureIndex({ fields: { projectId: 1 } });
  await members.ensureIndex({ fields: { userId: 1 } });
  await members.ensureIndex({ fields: { workspaceId: 1 } });
  return { projects, members };
};
