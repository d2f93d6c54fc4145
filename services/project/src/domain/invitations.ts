import { checkFields, conflict, forbidden, newId, notFound, validationFailed } from "@earshot/platform/core";
import { z } from "zod";
import { projectFields } from "../fields";
import type { MemberDoc, ProjectDoc } from "../store";
import { MEMBERS } from "../store";
import { memberKey } from "./access";
import type { ProjectDeps } from "./deps";
import { memberEvent } from "../events";
import { hashToken, type MemberStatus, statusOf } from "./members";

// Invitation acceptance, reached by the emailed token (the invitee may have no account yet).

export interface InvitationPreview {
  invitation: MemberDoc;
  project: ProjectDoc;
  status: MemberStatus;
}

export const previewInvitation = async (deps: ProjectDeps, token: string): Promise<InvitationPreview> => {
  const invitation = token.length >= 20 && token.length <= 100 ? await deps.collections.members.findOne({ tokenHash: hashToken(token) }) : null;
  const project = invitation ? await deps.collections.projects.findById(invitation.projectId) : null;
  if (!invitation || !project) throw notFound("Invitation");
  return { invitation, project, status: statusOf(invitation, deps.clock.now()) };
};

// The account's display name, which the member row keeps: bounded like every name of a project.
const acceptFields = z.object({ userName: projectFields.name });

/**
 * Runs under the workspace guard like every write that changes seats: its invitation holds a seat only
 * while pending, so an accept must not commit after the invitation expired and an invitation took the
 * seat meanwhile. Of two accepts of one invitation, the loser reads again and finds it accepted (409).
 */
export const acceptInvitation = async (
  deps: ProjectDeps,
  input: { token: string; userId: string; userEmail: string; userName: string },
): Promise<{ member: MemberDoc; project: ProjectDoc }> => {
  const errors = checkFields(acceptFields, { userName: input.userName });
  if (errors.length > 0) throw validationFailed(errors);
  const { project: found } = await previewInvitation(deps, input.token);
  return deps.guard.run(found.workspaceId, async (commit) => {
    const { invitation, project, status } = await previewInvitation(deps, input.token);
    if (status === "expired") throw conflict("The invitation has expired.");
    if (status !== "pending") throw conflict(`The invitation was already ${status}.`);
    if (project.status === "archived") throw conflict("The project is archived.");
    if (input.userEmail.trim().toLowerCase() !== invitation.email) throw forbidden("This invitation was sent to another address.");
    if (await deps.collections.members.findOne({ memberKey: memberKey(project._id, input.userId) })) {
      throw conflict("You are already a member of this project.");
    }
    const now = deps.clock.now();
    const member: MemberDoc = {
      _id: newId("mbr", now.getTime()),
      memberType: "member",
      projectId: project._id,
      workspaceId: project.workspaceId,
      userId: input.userId,
      email: invitation.email,
      name: input.userName.trim(),
      role: invitation.role,
      memberKey: memberKey(project._id, input.userId),
      createdAt: now,
      _v: 1,
    };
    await commit(
      [
        { kind: "insert", collection: MEMBERS, doc: member },
        { kind: "replace", collection: MEMBERS, doc: { ...invitation, status: "accepted" } as MemberDoc, expectedVersion: invitation._v ?? 1 },
      ],
      [memberEvent("member.added", member)],
    );
    return { member, project };
  });
};
