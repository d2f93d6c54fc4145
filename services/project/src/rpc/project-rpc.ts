import { notFound, type RpcContext } from "@earshot/platform";
import type { projectV1 } from "@earshot/proto";
import { type ProjectView, requireCaller } from "../domain/access";
import { setPublicDashboard } from "../domain/dashboard";
import type { ProjectDeps } from "../domain/deps";
import { acceptInvitation, previewInvitation } from "../domain/invitations";
import { inviteMember, listMembers, removeMember, statusOf, updateMemberRole } from "../domain/members";
import { archiveProject, createProject, listProjects, updateProject } from "../domain/projects";
import { loadVisibleProject } from "../domain/access";
import { workspaceUsage } from "../domain/usage";
import type { MemberDoc, ProjectDoc } from "../store";

// gRPC adapter: decode, call a domain verb, encode. No rules live here.

export const toProjectMessage = (p: ProjectDoc, role: string): projectV1.Project => ({
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
  publicDashboard: {
    enabled: p.publicDashboard.enabled,
    shareId: p.publicDashboard.shareId ?? "",
    description: p.publicDashboard.description,
    websiteUrl: p.publicDashboard.websiteUrl ?? "",
  },
  archivedAt: p.archivedAt,
});

const view = (v: ProjectView) => toProjectMessage(v.project, v.role);

export const toMemberMessage = (m: MemberDoc, now: Date): projectV1.Member => ({
  id: m._id,
  projectId: m.projectId,
  memberType: m.memberType,
  userId: m.userId ?? "",
  email: m.email,
  name: m.name ?? "",
  role: m.role,
  status: statusOf(m, now),
  createdAt: m.createdAt,
  expiresAt: m.expiresAt,
});

export const projectRpc = (deps: ProjectDeps) => ({
  createProject: async (req: projectV1.CreateProjectRequest, ctx: RpcContext): Promise<projectV1.CreateProjectResponse> => ({
    project: view(
      await createProject(
        deps,
        requireCaller(req.caller),
        {
          name: req.name,
          ...(req.description !== undefined ? { description: req.description } : {}),
          ...(req.color !== undefined ? { color: req.color } : {}),
          ...(req.icon !== undefined ? { icon: req.icon } : {}),
          ...(req.enabledSources ? { enabledSources: req.enabledSources.sources } : {}),
          ...(req.digestTimezone !== undefined ? { digestTimezone: req.digestTimezone } : {}),
        },
        ctx.idempotencyKey,
      ),
    ),
  }),
  getProject: async (req: projectV1.GetProjectRequest, _ctx: RpcContext): Promise<projectV1.GetProjectResponse> => ({
    project: view(await loadVisibleProject(deps, requireCaller(req.caller), req.projectId)),
  }),
  listProjects: async (req: projectV1.ListProjectsRequest, _ctx: RpcContext): Promise<projectV1.ListProjectsResponse> => {
    const page = await listProjects(deps, requireCaller(req.caller), req.limit, req.cursor);
    return { projects: page.items.map(view), nextCursor: page.nextCursor ?? "" };
  },
  updateProject: async (req: projectV1.UpdateProjectRequest, _ctx: RpcContext): Promise<projectV1.UpdateProjectResponse> => ({
    project: view(
      await updateProject(deps, requireCaller(req.caller), req.projectId, {
        ...(req.name !== undefined ? { name: req.name } : {}),
        ...(req.description !== undefined ? { description: req.description } : {}),
        ...(req.color !== undefined ? { color: req.color } : {}),
        ...(req.icon !== undefined ? { icon: req.icon } : {}),
        ...(req.enabledSources ? { enabledSources: req.enabledSources.sources } : {}),
        ...(req.digestTimezone !== undefined ? { digestTimezone: req.digestTimezone } : {}),
        ...(req.status !== undefined ? { status: req.status } : {}),
      }),
    ),
  }),
  archiveProject: async (req: projectV1.ArchiveProjectRequest, _ctx: RpcContext): Promise<projectV1.ArchiveProjectResponse> => ({
    project: view(await archiveProject(deps, requireCaller(req.caller), req.projectId)),
  }),
  listProjectMembers: async (req: projectV1.ListProjectMembersRequest, _ctx: RpcContext): Promise<projectV1.ListProjectMembersResponse> => {
    const { page } = await listMembers(deps, requireCaller(req.caller), req.projectId, req.limit, req.cursor);
    const now = deps.clock.now();
    return { members: page.items.map((m) => toMemberMessage(m, now)), nextCursor: page.nextCursor ?? "" };
  },
  inviteProjectMember: async (req: projectV1.InviteProjectMemberRequest, ctx: RpcContext): Promise<projectV1.InviteProjectMemberResponse> => ({
    member: toMemberMessage(
      await inviteMember(
        deps,
        requireCaller(req.caller),
        { projectId: req.projectId, email: req.email, role: req.role, acceptUrlBase: req.acceptUrlBase },
        ctx.idempotencyKey,
      ),
      deps.clock.now(),
    ),
  }),
  updateProjectMember: async (req: projectV1.UpdateProjectMemberRequest, _ctx: RpcContext): Promise<projectV1.UpdateProjectMemberResponse> => ({
    member: toMemberMessage(
      await updateMemberRole(deps, requireCaller(req.caller), { projectId: req.projectId, memberId: req.memberId, role: req.role, memberType: req.memberType }),
      deps.clock.now(),
    ),
  }),
  removeProjectMember: async (req: projectV1.RemoveProjectMemberRequest, _ctx: RpcContext): Promise<projectV1.RemoveProjectMemberResponse> => ({
    member: toMemberMessage(
      await removeMember(deps, requireCaller(req.caller), { projectId: req.projectId, memberId: req.memberId, memberType: req.memberType }),
      deps.clock.now(),
    ),
  }),
  setPublicDashboard: async (req: projectV1.SetPublicDashboardRequest, _ctx: RpcContext): Promise<projectV1.SetPublicDashboardResponse> => ({
    project: view(
      await setPublicDashboard(deps, requireCaller(req.caller), {
        projectId: req.projectId,
        enabled: req.enabled,
        ...(req.description !== undefined ? { description: req.description } : {}),
        ...(req.websiteUrl !== undefined ? { websiteUrl: req.websiteUrl } : {}),
      }),
    ),
  }),
  getInvitation: async (req: projectV1.GetInvitationRequest, _ctx: RpcContext): Promise<projectV1.GetInvitationResponse> => {
    const { invitation, project, status } = await previewInvitation(deps, req.token);
    return {
      invitation: {
        invitationId: invitation._id,
        projectId: project._id,
        projectName: project.name,
        email: invitation.email,
        role: invitation.role,
        status,
        expiresAt: invitation.expiresAt,
      },
    };
  },
  acceptInvitation: async (req: projectV1.AcceptInvitationRequest, _ctx: RpcContext): Promise<projectV1.AcceptInvitationResponse> => {
    if (!req.userId) throw notFound("User");
    const { member, project } = await acceptInvitation(deps, req);
    return { member: toMemberMessage(member, deps.clock.now()), project: toProjectMessage(project, member.role) };
  },
  getWorkspaceUsage: async (req: projectV1.GetWorkspaceUsageRequest, _ctx: RpcContext): Promise<projectV1.GetWorkspaceUsageResponse> =>
    workspaceUsage(deps, req.workspaceId),
});
