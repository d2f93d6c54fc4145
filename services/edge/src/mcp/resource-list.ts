import type { ListResourcesResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "./call-context";
import { callOperation, mayCall, type OperationDeps } from "./operation-call";
import { JSON_MIME_TYPE, resourceDescription } from "./resource-kinds";
import { resourceUri } from "./resource-uris";
import { refusalOf } from "./rpc-errors";

// resources/list: the concrete resources the caller can read, found through the operations that list
// them (list_projects, list_mention_views), so the listing never shows what a read would refuse. A page
// is one page of list_projects (PROJECTS_PER_PAGE projects) with, per project, its mentions and each of its
// saved views' mentions (the first VIEWS_PER_PROJECT views); the MCP cursor is list_projects' cursor.
// Single mentions are not listed: there are too many, their template reaches any of them.

export const PROJECTS_PER_PAGE = 20;
export const VIEWS_PER_PROJECT = 100;

interface ProjectRow {
  id: string;
  name: string;
}
interface ViewRow {
  id: string;
  name: string;
}

const entry = (uri: string, name: string, title: string, kind: Parameters<typeof resourceDescription>[0]): Resource => ({
  uri,
  name,
  title,
  description: resourceDescription(kind),
  mimeType: JSON_MIME_TYPE,
});

/** A project's saved views, or none when they cannot be read now (the project's own entries still list). */
const viewsOf = async (deps: OperationDeps, projectId: string, ctx: CallContext): Promise<ViewRow[]> => {
  const response = await callOperation(deps, "list_mention_views", { projectId, limit: VIEWS_PER_PROJECT }, ctx);
  return response.status === 200 ? (response.body as { data: ViewRow[] }).data : [];
};

const entriesOf = async (deps: OperationDeps, project: ProjectRow, withMentions: boolean, ctx: CallContext): Promise<Resource[]> => {
  const own = entry(resourceUri({ kind: "project", projectId: project.id }), project.name, `Project ${project.name}`, "project");
  if (!withMentions) return [own];
  const mentions = entry(resourceUri({ kind: "project-mentions", projectId: project.id }), `${project.name} mentions`, `Newest mentions of ${project.name}`, "project-mentions");
  const views = (await viewsOf(deps, project.id, ctx)).map((view) =>
    entry(resourceUri({ kind: "view-mentions", viewId: view.id }), `${project.name} / ${view.name} mentions`, `Newest mentions of the view ${view.name} (${project.name})`, "view-mentions"),
  );
  return [own, mentions, ...views];
};

export const listResources = async (deps: OperationDeps, cursor: string | undefined, ctx: CallContext): Promise<ListResourcesResult> => {
  // Without projects:read the caller can find no project, hence no resource to list (the templates still read).
  if (!mayCall(deps, "list_projects", ctx)) return { resources: [] };
  const page = await callOperation(deps, "list_projects", { limit: PROJECTS_PER_PAGE, ...(cursor !== undefined ? { cursor } : {}) }, ctx);
  if (page.status >= 400) throw refusalOf(page);
  const { data, meta } = page.body as { data: ProjectRow[]; meta: { nextCursor?: string | null } };
  const withMentions = mayCall(deps, "list_mentions", ctx);
  const perProject = await Promise.all(data.map((project) => entriesOf(deps, project, withMentions, ctx)));
  return { resources: perProject.flat(), ...(meta.nextCursor ? { nextCursor: meta.nextCursor } : {}) };
};
