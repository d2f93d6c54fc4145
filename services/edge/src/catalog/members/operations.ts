import { memberFields } from "@earshot/project/fields";
import { z } from "zod";
import { MEMBER_TYPE_WORDS, ROLE_WORDS } from "@earshot/platform";
import { defineOperation } from "../operation";
import { pageQuery, projectId, projectPath, resourceId } from "../shared/schemas";
import { wireValue } from "../shared/wire-enums";
import { memberSchema, presentMember } from "./resource";

const memberPath = z.object({ projectId, memberId: resourceId(["mbr", "inv"], "The member (mbr_…) or invitation (inv_…) id.") }).strict();

export const memberOperations = [
  defineOperation({
    name: "list_project_members",
    title: "List project members",
    description: "Lists the project's members with their roles; owners also see pending and expired invitations (memberType invite).",
    method: "GET",
    path: "/projects/:projectId/members",
    scope: "projects:read",
    tag: "Members",
    output: memberSchema,
    input: { path: projectPath, query: pageQuery },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.project.listProjectMembers({
        projectId: input.projectId,
        limit: input.limit,
        cursor: input.cursor ?? "",
      });
      return { data: res.members.map(presentMember), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "invite_project_member",
    title: "Invite a project member",
    description: "Emails an invitation (owner only) valid for 7 days. Seat allowance and invitation email rate limits apply.",
    method: "POST",
    path: "/projects/:projectId/members",
    scope: "projects:write",
    tag: "Members",
    output: memberSchema,
    input: {
      path: projectPath,
      body: z
        .object({
          email: memberFields.email.describe("Address to invite."),
          role: memberFields.role.default("viewer").describe("viewer (default) or editor."),
        })
        .strict(),
    },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async (input, ctx) => {
      const { member } = await ctx.backends.project.inviteProjectMember({
        projectId: input.projectId,
        email: input.email,
        role: wireValue(ROLE_WORDS, input.role),
        acceptUrlBase: ctx.publicUrl,
      });
      return { data: presentMember(member) };
    },
  }),
  defineOperation({
    name: "update_project_member",
    title: "Change a member's role",
    description: "Changes the role of a member or of a pending invitation (memberType invite); owner only.",
    method: "PATCH",
    path: "/projects/:projectId/members/:memberId",
    scope: "projects:write",
    tag: "Members",
    output: memberSchema,
    input: {
      path: memberPath,
      body: z
        .object({
          role: memberFields.role.describe("viewer or editor."),
          memberType: memberFields.memberType.default("member").describe("member (default) or invite."),
        })
        .strict(),
    },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { member } = await ctx.backends.project.updateProjectMember({
        projectId: input.projectId,
        memberId: input.memberId,
        role: wireValue(ROLE_WORDS, input.role),
        memberType: wireValue(MEMBER_TYPE_WORDS, input.memberType),
      });
      return { data: presentMember(member) };
    },
  }),
  defineOperation({
    name: "remove_project_member",
    title: "Remove a member or revoke an invitation",
    description: "Removes a member, or revokes a pending invitation when memberType is invite; owner only.",
    method: "DELETE",
    path: "/projects/:projectId/members/:memberId",
    scope: "projects:write",
    tag: "Members",
    output: memberSchema,
    input: {
      path: memberPath,
      query: z.object({ memberType: memberFields.memberType.default("member").describe("member (default) or invite.") }),
    },
    // The spec makes MCP callers say which kind they remove; REST keeps its default.
    mcpRequired: ["memberType"],
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { member } = await ctx.backends.project.removeProjectMember({
        projectId: input.projectId,
        memberId: input.memberId,
        memberType: wireValue(MEMBER_TYPE_WORDS, input.memberType),
      });
      return { data: presentMember(member) };
    },
  }),
];
