import { notFound } from "@earshot/platform/core";
import type { ProjectDoc } from "../store";
import type { ProjectDeps } from "./deps";
import type { Source } from "./project-rules";

// The public dashboard's reads have no caller: whoever holds the share id may read what the dashboard
// shows, and nothing else. A dashboard that is disabled, of an archived project or of a project paused by
// its owner's deactivation answers exactly like an unknown share id, so the link says nothing about why.

/** What the dashboard may show of a project: never its own description, members, workspace or ids. */
export interface PublicProject {
  shareId: string;
  name: string;
  color: string;
  icon: string;
  /** The dashboard's public description. */
  description: string;
  websiteUrl: string;
  /** Paused by the owner: the data is still shown, with a note that collection is paused. */
  paused: boolean;
  enabledSources: Source[];
  timezone: string;
}

/** Whether the share id answers: enabled, and the project neither archived nor paused by its owner's deactivation. */
export const isDashboardServed = (p: ProjectDoc): boolean =>
  p.publicDashboard.enabled && !!p.publicDashboard.shareId && p.status !== "archived" && !p.pausedByDeactivation;

/** Share ids are 12 base64url characters; anything else is unknown without a read. */
const SHARE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const getPublicDashboard = async (deps: ProjectDeps, shareId: string): Promise<PublicProject> => {
  const project = SHARE_ID.test(shareId) ? await deps.collections.projects.findOne({ "publicDashboard.shareId": shareId }) : null;
  if (!project || !isDashboardServed(project)) throw notFound("Dashboard");
  return {
    shareId,
    name: project.name,
    color: project.color,
    icon: project.icon,
    description: project.publicDashboard.description,
    websiteUrl: project.publicDashboard.websiteUrl ?? "",
    paused: project.status === "paused",
    enabledSources: [...project.enabledSources],
    timezone: project.digestTimezone,
  };
};
