import { createHash, randomBytes } from "node:crypto";
import {
  conflict,
  type EffectRecord,
  checkFields,
  type FieldError,
  newId,
  notFound,
  type Page,
  pageLimit,
  rateLimited,
  usageLimited,
  validationFailed,
  withCursorErrors,
  withVersionRetry,
} from "@earshot/platform/core";
import { z } from "zod";
import { memberFields, type MemberStatus } from "../fields";
import type { MemberDoc, ProjectDoc } from "../store";
import { MEMBERS } from "../store";
import { loadProjectWithRole, loadVisibleProject, type ProjectView } from "./access";
import { memberEvent } from "../events";
import type { Caller, ProjectDeps } from "./deps";
import { seatHolders } from "./usage";

// Members and invitations. An invitation is emailed with a one-time token (only its hash is stored),
// lasts 7 days, holds a seat while pending, and turns into a membership when accepted.

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const INVITATIONS_PER_HOUR = 20;
const HOUR_MS = 3600 * 1000;
const invitationFields = z.object({ email: memberFields.email, role: memberFields.role });
const roleChangeFields = z.object({ role: memberFields.role });

/** An invitation's fields; gRPC's empty role means the default, viewer. */
export const checkInvitationFields = (input: { email: string; role: string }): FieldError[] =>
  checkFields(invitationFields, { email: input.email, role: input.role || "viewer" });
export const checkRoleChange = (role: string): FieldError[] => checkFields(roleChangeFields, { role });

export type { MemberStatus } from "../fields";

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export const statusOf = (m: MemberDoc, now: Date): MemberStatus => {
  if (m.memberType === "member") return "active";
  if (m.status === "pending" && m.expiresAt && m.expiresAt.getTime() <= now.getTime()) return "expired";
  return m.status ?? "pending";
};

const assertNotArchived = (project: ProjectDoc) => {
  if (project.status === "archived") throw conflict("The project is archived.");
};

/** Members (owner first, then by joining time); owners also see invitations that were not accepted or revoked. */
export const listMembers = async (
  deps: ProjectDeps,
  caller: Caller,
  projectId: string,
  limit: number,
  cursor: string | undefined,
): Promise<{ view: ProjectView; page: Page<MemberDoc> }> => {
  const size = pageLimit(limit === 0 ? undefined : limit);
  const view = await loadVisibleProject(deps, caller, projectId);
  const filter =
    view.role === "owner"
      ? { projectId, $or: [{ memberType: "member" }, { memberType: "invite", status: "pending" }] }
      : { projectId, memberType: "member" };
  const page = await withCursorErrors(() =>
    deps.collections.members.findPage(filter, { limit: size, cursor: cursor || null, sortField: "createdAt" }),
  );
  return { view, page };
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const invitationEmail = (name: string, role: string, link: string) => ({
  subject: `You're invited to ${name} on Earshot`,
  text: `You were invited to join the project "${name}" on Earshot as ${role}.\n\nAccept the invitation: ${link}\n\nThe link works for 7 days.`,
  html: `<p>You were invited to join the project <strong>${escapeHtml(name)}</strong> on Earshot as ${role}.</p><p><a href="${link}">Accept the invitation</a></p><p>The link works for 7 days.</p>`,
});

/**
 * Invites someone by email. The checks (not already in, no pending invitation, a free seat, the hourly
 * email budget) run under the workspace guard, so racing invitations cannot pass them together; only the
 * invitation that was committed is emailed. With `effectKey`, a re-run of an invitation that already
 * committed answers with it and sends nothing (its token exists only in the first run's email).
 */
export const inviteMember = async (
  deps: ProjectDeps,
  caller: Caller,
  input: { projectId: string; email: string; role: string; acceptUrlBase: string },
  effectKey?: string,
): Promise<MemberDoc> => {
  const role = input.role || "viewer";
  const errors = checkInvitationFields(input);
  const email = input.email.trim().toLowerCase();
  if (!/^https?:\/\/[^\s]+$/.test(input.acceptUrlBase)) errors.push({ path: "acceptUrlBase", message: "must be an http or https origin" });
  if (errors.length > 0) throw validationFailed(errors);
  const view = await loadProjectWithRole(deps, caller, input.projectId, "owner");
  assertNotArchived(view.project);
  const replay = async (effect: EffectRecord) => {
    const invitation = await deps.collections.members.findById(effect.resourceId);
    if (!invitation) throw notFound("Invitation");
    return { invitation, token: undefined };
  };
  const { invitation, token } = await deps.guard.runOnce(view.project.workspaceId, effectKey, replay, async (commit) => {
      const now = deps.clock.now();
      const rows = await deps.collections.members.find({ projectId: view.project._id, email });
      if (rows.some((r) => r.memberType === "member")) throw conflict("This person is already a member of the project.");
      if (rows.some((r) => statusOf(r, now) === "pending")) throw conflict("This person already has a pending invitation.");
      const holders = await seatHolders(deps, view.project.workspaceId);
      if (!holders.has(email) && holders.size >= caller.allowances.seats) throw usageLimited("seats", caller.allowances.seats);
      const recent = await deps.collections.members.find(
        { workspaceId: view.project.workspaceId, memberType: "invite", createdAt: { $gt: new Date(now.getTime() - HOUR_MS) } },
        { sort: { createdAt: 1 } },
      );
      if (recent.length >= INVITATIONS_PER_HOUR) {
        const oldest = recent[0] as MemberDoc;
        const retryAfter = Math.max(1, Math.ceil((oldest.createdAt.getTime() + HOUR_MS - now.getTime()) / 1000));
        throw rateLimited(retryAfter, `At most ${INVITATIONS_PER_HOUR} invitation emails an hour are sent per workspace.`);
      }
      const secret = randomBytes(32).toString("base64url");
      const created: MemberDoc = {
        _id: newId("inv", now.getTime()),
        memberType: "invite",
        projectId: view.project._id,
        workspaceId: view.project.workspaceId,
        email,
        role: role as MemberDoc["role"],
        tokenHash: hashToken(secret),
        status: "pending",
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        invitedBy: caller.userId,
        _v: 1,
      };
      await commit(
        [{ kind: "insert", collection: MEMBERS, doc: created }],
        [memberEvent("member.invited", created)],
        effectKey ? { key: effectKey, resourceId: created._id } : undefined,
      );
      return { invitation: created, token: secret as string | undefined };
  });
  if (token === undefined) return invitation;
  const link = `${input.acceptUrlBase.replace(/\/+$/, "")}/invitations/${token}`;
  // The invitation exists once committed; a mail failure is logged and the owner can revoke and re-invite.
  await deps.mailer
    .send({ to: email, ...invitationEmail(view.project.name, role, link) })
    .catch((err: unknown) => deps.logger.error({ err, invitationId: invitation._id }, "invitation email could not be sent"));
  return invitation;
};

// A target missing on a retry existed on the first attempt: a concurrent request removed it or closed the
// invitation, and this one lost that race (409), unlike a target that was never there (404).
const findTarget = async (deps: ProjectDeps, projectId: string, memberId: string, memberType: string, attempt: number): Promise<MemberDoc> => {
  if (memberType !== "member" && memberType !== "invite") throw validationFailed([{ path: "memberType", message: "must be member or invite" }]);
  const row = await deps.collections.members.findById(memberId);
  const live = memberType === "member" || row?.status === "pending";
  if (!row || row.projectId !== projectId || row.memberType !== memberType || !live) {
    if (attempt > 1) throw conflict("Another request removed this member or closed this invitation meanwhile.");
    throw notFound("Member");
  }
  return row;
};

const versionOf = (m: MemberDoc) => m._v ?? 1;

export const updateMemberRole = (
  deps: ProjectDeps,
  caller: Caller,
  input: { projectId: string; memberId: string; role: string; memberType: string },
): Promise<MemberDoc> =>
  withVersionRetry(async (attempt) => {
    const roleErrors = checkRoleChange(input.role);
    if (roleErrors.length > 0) throw validationFailed(roleErrors);
    const view = await loadProjectWithRole(deps, caller, input.projectId, "owner");
    assertNotArchived(view.project);
    const target = await findTarget(deps, view.project._id, input.memberId, input.memberType || "member", attempt);
    if (target.role === "owner") throw conflict("The owner's role cannot change.");
    if (target.role === input.role) return target;
    const next: MemberDoc = { ...target, role: input.role as MemberDoc["role"] };
    await deps.outbox.commit(
      [{ kind: "replace", collection: MEMBERS, doc: next, expectedVersion: versionOf(target) }],
      [memberEvent("member.role_changed", next)],
    );
    return { ...next, _v: versionOf(target) + 1 };
  });

export const removeMember = (
  deps: ProjectDeps,
  caller: Caller,
  input: { projectId: string; memberId: string; memberType: string },
): Promise<MemberDoc> =>
  withVersionRetry(async (attempt) => {
    const view = await loadProjectWithRole(deps, caller, input.projectId, "owner");
    assertNotArchived(view.project);
    const target = await findTarget(deps, view.project._id, input.memberId, input.memberType || "member", attempt);
    if (target.role === "owner") throw conflict("The owner cannot be removed from the project.");
    if (target.memberType === "member") {
      // A delete write carries no expected version; replacing the row at the version read, in the same
      // commit, makes the delete conditional, so of two racing removals only one commits (and emits).
      await deps.outbox.commit(
        [
          { kind: "replace", collection: MEMBERS, doc: target, expectedVersion: versionOf(target) },
          { kind: "delete", collection: MEMBERS, id: target._id },
        ],
        [memberEvent("member.removed", target)],
      );
      return target;
    }
    const revoked: MemberDoc = { ...target, status: "revoked" };
    await deps.outbox.commit(
      [{ kind: "replace", collection: MEMBERS, doc: revoked, expectedVersion: versionOf(target) }],
      [memberEvent("member.invite_revoked", revoked)],
    );
    return revoked;
  });
