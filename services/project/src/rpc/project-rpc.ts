import {
  enumValueOf,
  enumWordOf,
  MEMBER_TYPE_WORDS,
  notFound,
  PROJECT_STATUS_WORDS,
  requireCaller,
  ROLE_WORDS,
  type RpcContext,
  SOURCE_WORDS,
  validationFailed,
} from "@earshot/platform";
import { type commonV1, projectV1 } from "@earshot/proto";
import { MEMBER_STATUS_WORDS } from "../fields";
import type { ProjectView } from "../domain/access";
import { setPublicDashboard } from "../domain/dashboard";
import type { Caller, ProjectDeps } from "../domain/deps";
import { acceptInvitation, previewInvitation } from "../domain/invitations";
import { inviteMember, listMembers, removeMember, statusOf, updateMemberRole } from "../domain/members";
import { archiveProject, createProject, listProjects, membershipsOf, updateProject } from "../domain/projects";
import { loadVisibleProject } from "../domain/access";
import { getPublicDashboard } from "../domain/public-dashboard";
import { workspaceUsage } from "../domain/usage";
import type { MemberDoc } from "../store";
import { toProjectMessage } from "../project-message";

export { toProjectMessage };

// gRPC adapter: decode, call a domain verb, encode. No rules live here. The caller comes from the call's
// metadata (ctx.caller), never from the request. Enums become the domain's words and back; an enum value the
// domain does not know becomes a word it refuses with a field error, and UNSPECIFIED becomes "not given".

const callerOf = (ctx: RpcContext): Caller => {
  const c = requireCaller(ctx);
  return { userId: c.userId, workspaceId: c.workspaceId, email: c.email, allowances: c.allowances };
};

const sourcesOf = (list: projectV1.SourceList | undefined): string[] | undefined => list?.sources.map((v) => enumWordOf(SOURCE_WORDS, v));

const view = (v: ProjectView) => toProjectMessage(v.project, v.role);

export const toMemberMessage = (m: MemberDoc, now: Date): projectV1.Member => ({
  id: m._id,
  projectId: m.projectId,
  memberType: enumValueOf<commonV1.MemberType>(MEMBER_TYPE_WORDS, m.memberType),
  userId: m.userId ?? "",
  email: m.email,
  name: m.name ?? "",
  role: enumValueOf<commonV1.Role>(ROLE_WORDS, m.role),
  status: enumValueOf(MEMBER_STATUS_WORDS, statusOf(m, now)),
  createdAt: m.createdAt,
  expiresAt: m.expiresAt,
});

export const projectRpc = (deps: ProjectDeps) => ({
  createProject: async (req: projectV1.CreateProjectRequest, ctx: RpcContext): Promise<projectV1.CreateProjectResponse> => ({
    project: view(
      await createProject(
        deps,
        callerOf(ctx),
        {
          name: req.name,
          ...(req.description !== undefined ? { description: req.description } : {}),
          ...(req.color !== undefined ? { color: req.color } : {}),
          ...(req.icon !== undefined ? { icon: req.icon } : {}),
          ...(req.enabledSources ? { enabledSources: sourcesOf(req.enabledSources) } : {}),
          ...(req.digestTimezone !== undefined ? { digestTimezone: req.digestTimezone } : {}),
        },
        ctx.idempotencyKey,
      ),
    ),
  }),
  getProject: async (req: projectV1.GetProjectRequest, ctx: RpcContext): Promise<projectV1.GetProjectResponse> => ({
    project: view(await loadVisibleProject(deps, callerOf(ctx), req.projectId)),
  }),
  listProjects: async (req: projectV1.ListProjectsRequest, ctx: RpcContext): Promise<projectV1.ListProjectsResponse> => {
    const page = await listProjects(deps, callerOf(ctx), req.limit, req.cursor);
    return { projects: page.items.map(view), nextCursor: page.nextCursor ?? "" };
  },
  updateProject: async (req: projectV1.UpdateProjectRequest, ctx: RpcContext): Promise<projectV1.UpdateProjectResponse> => ({
    project: view(
      await updateProject(deps, callerOf(ctx), req.projectId, {
        ...(req.name !== undefined ? { name: req.name } : {}),
        ...(req.description !== undefined ? { description: req.description } : {}),
        ...(req.color !== undefined ? { color: req.color } : {}),
        ...(req.icon !== undefined ? { icon: req.icon } : {}),
        ...(req.enabledSources ? { enabledSources: sourcesOf(req.enabledSources) } : {}),
        ...(req.digestTimezone !== undefined ? { digestTimezone: req.digestTimezone } : {}),
        ...(req.status !== undefined ? { status: enumWordOf(PROJECT_STATUS_WORDS, req.status) } : {}),
      }),
    ),
  }),
  archiveProject: async (req: projectV1.ArchiveProjectRequest, ctx: RpcContext): Promise<projectV1.ArchiveProjectResponse> => ({
    project: view(await archiveProject(deps, callerOf(ctx), req.projectId)),
  }),
  listProjectMembers: async (req: projectV1.ListProjectMembersRequest, ctx: RpcContext): Promise<projectV1.ListProjectMembersResponse> => {
    const { page } = await listMembers(deps, callerOf(ctx), req.projectId, req.limit, req.cursor);
    const now = deps.clock.now();
    return { members: page.items.map((m) => toMemberMessage(m, now)), nextCursor: page.nextCursor ?? "" };
  },
  inviteProjectMember: async (req: projectV1.InviteProjectMemberRequest, ctx: RpcContext): Promise<projectV1.InviteProjectMemberResponse> => ({
    member: toMemberMessage(
      await inviteMember(
        deps,
        callerOf(ctx),
        { projectId: req.projectId, email: req.email, role: enumWordOf(ROLE_WORDS, req.role), acceptUrlBase: req.acceptUrlBase },
        ctx.idempotencyKey,
      ),
      deps.clock.now(),
    ),
  }),
  updateProjectMember: async (req: projectV1.UpdateProjectMemberRequest, ctx: RpcContext): Promise<projectV1.UpdateProjectMemberResponse> => ({
    member: toMemberMessage(
      await updateMemberRole(deps, callerOf(ctx), {
        projectId: req.projectId,
        memberId: req.memberId,
        role: enumWordOf(ROLE_WORDS, req.role),
        memberType: enumWordOf(MEMBER_TYPE_WORDS, req.memberType),
      }),
      deps.clock.now(),
    ),
  }),
  removeProjectMember: async (req: projectV1.RemoveProjectMemberRequest, ctx: RpcContext): Promise<projectV1.RemoveProjectMemberResponse> => ({
    member: toMemberMessage(
      await removeMember(deps, callerOf(ctx), { projectId: req.projectId, memberId: req.memberId, memberType: enumWordOf(MEMBER_TYPE_WORDS, req.memberType) }),
      deps.clock.now(),
    ),
  }),
  setPublicDashboard: async (req: projectV1.SetPublicDashboardRequest, ctx: RpcContext): Promise<projectV1.SetPublicDashboardResponse> => ({
    project: view(
      await setPublicDashboard(deps, callerOf(ctx), {
        projectId: req.projectId,
        enabled: req.enabled,
        ...(req.description !== undefined ? { description: req.description } : {}),
        ...(req.websiteUrl !== undefined ? { websiteUrl: req.websiteUrl } : {}),
        ...(req.minRelevance !== undefined ? { minRelevance: req.minRelevance } : {}),
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
        role: enumValueOf<commonV1.Role>(ROLE_WORDS, invitation.role),
        status: enumValueOf(MEMBER_STATUS_WORDS, status),
        expiresAt: invitation.expiresAt,
      },
    };
  },
  acceptInvitation: async (req: projectV1.AcceptInvitationRequest, _ctx: RpcContext): Promise<projectV1.AcceptInvitationResponse> => {
    if (!req.userId) throw notFound("User");
    const { member, project } = await acceptInvitation(deps, req);
    return { member: toMemberMessage(member, deps.clock.now()), project: toProjectMessage(project, member.role) };
  },
  // get_usage's projects and seats, by those names (the limits this service's registry entry declares).
  getWorkspaceUsage: async (req: projectV1.GetWorkspaceUsageRequest, _ctx: RpcContext): Promise<projectV1.GetWorkspaceUsageResponse> => {
    const { projects, seats } = await workspaceUsage(deps, req.workspaceId);
    return { usage: { counts: { projects: String(projects), seats: String(seats) } } };
  },
  // The edge resolves a caller with this, so it names the user itself and needs no caller.
  listMemberships: async (req: projectV1.ListMembershipsRequest, _ctx: RpcContext): Promise<projectV1.ListMembershipsResponse> => {
    if (!req.userId) throw validationFailed([{ path: "userId", message: "is required" }]);
    const memberships = await membershipsOf(deps, req.userId);
    return { memberships: memberships.map((m) => ({ projectId: m.projectId, role: enumValueOf<commonV1.Role>(ROLE_WORDS, m.role), workspaceId: m.workspaceId })) };
  },
  // The share id is the authorization: no caller.
  getPublicDashboard: async (req: projectV1.GetPublicDashboardRequest, _ctx: RpcContext): Promise<projectV1.GetPublicDashboardResponse> => {
    const p = await getPublicDashboard(deps, req.shareId);
    return { project: { ...p, enabledSources: p.enabledSources.map((w) => enumValueOf<commonV1.Source>(SOURCE_WORDS, w)) } };
  },
});
