import type { RpcContext } from "@earshot/platform";
import { projectV1 } from "@earshot/proto";
import { createProject, loadVisibleProject, type ProjectDeps, type ProjectView, requireCaller } from "../domain/projects";

export const toProjectMessage = ({ project: p, role }: ProjectView): projectV1.Project => ({
  id: p._id,
  workspaceId: p.workspaceId,
  ownerId: p.ownerId,
  name: p.name,
  description: p.description,
  color: p.color,
  icon: p.icon,
  enabledSources: p.enabledSources,
  status: p.status,
  digestTimezone: p.digestTimezone,
  role,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

export const projectRpc = (deps: ProjectDeps) => ({
  createProject: async (req: projectV1.CreateProjectRequest, _ctx: RpcContext): Promise<projectV1.CreateProjectResponse> => {
    const caller = requireCaller(req.caller);
    const view = await createProject(deps, caller, {
      name: req.name,
      ...(req.description !== undefined ? { description: req.description } : {}),
      ...(req.color !== undefined ? { color: req.color } : {}),
      ...(req.icon !== undefined ? { icon: req.icon } : {}),
      // proto3 repeated fields cannot be absent: an empty list means "use the default", never "no sources".
      ...(req.enabledSources.length > 0 ? { enabledSources: req.enabledSources } : {}),
      ...(req.digestTimezone !== undefined ? { digestTimezone: req.digestTimezone } : {}),
    });
    return { project: toProjectMessage(view) };
  },
  getProject: async (req: projectV1.GetProjectRequest, _ctx: RpcContext): Promise<projectV1.GetProjectResponse> => ({
    project: toProjectMessage(await loadVisibleProject(deps, requireCaller(req.caller), req.projectId)),
  }),
});
