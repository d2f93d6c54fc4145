import { escapeHtml } from "../pages/html";
import { type AppContext, type PageProject, projectOf } from "./app-context";
import type { AppPage } from "./app-routes";
import { type FormFailure, FormErrors, showRefusal } from "./form-errors";
import type { Problem } from "./run-operation";

// A project's members and pending invitations. Everyone in the project sees the list; its owner also
// invites (the invitation email's link ends signed in, in this project), changes roles and removes,
// through invite_project_member, update_project_member and remove_project_member. The project service
// refuses these to anyone but the owner, whatever a form says.

type Project = PageProject;
interface Member {
  id: string;
  memberType: string;
  email: string;
  name: string | null;
  role: string;
  status: string;
}

const ROLES = ["viewer", "editor"];

const membersPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/members`;

const renderMembers = async (ctx: AppContext, project: Project, status = 200, failure?: FormFailure) => {
  const r = await ctx.run<Member[]>("list_project_members", { projectId: project.id, limit: 100 });
  if (!r.ok) return ctx.problem(r.problem);
  const owner = project.role === "owner";
  const base = membersPath(project.id);
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(ctx.session.csrf)}">`;
  const row = (m: Member) => {
    const who = escapeHtml(m.name ? `${m.name} (${m.email})` : m.email);
    const forms =
      owner && m.role !== "owner"
        ? `<div class="triage">${m.memberType === "invite" ? "" : `<form method="post" action="${base}/${encodeURIComponent(m.id)}">${csrf}<label for="role-${escapeHtml(m.id)}">Role of ${escapeHtml(m.email)}</label><select id="role-${escapeHtml(m.id)}" name="role">${ROLES.map(
            (role) => `<option value="${role}"${role === m.role ? " selected" : ""}>${role}</option>`,
          ).join("")}</select><button class="btn" type="submit" name="action" value="role">Change role<span class="visually-hidden"> of ${escapeHtml(m.email)}</span></button></form>`}
<form method="post" action="${base}/${encodeURIComponent(m.id)}">${csrf}<input type="hidden" name="memberType" value="${escapeHtml(m.memberType)}"><button class="btn" type="submit" name="action" value="remove">${m.memberType === "invite" ? "Withdraw invitation" : "Remove"}<span class="visually-hidden"> ${escapeHtml(m.email)}</span></button></form></div>`
        : "";
    return `<li class="card" id="${escapeHtml(m.id)}"><p><strong>${who}</strong> <span class="tag">${escapeHtml(m.role)}</span>${m.memberType === "invite" ? ` <span class="tag">invited, ${escapeHtml(m.status)}</span>` : ""}</p>${forms}</li>`;
  };
  const f = new FormErrors(failure, "invite");
  const email = f.field("inv-email", ["email"]);
  const role = f.field("inv-role", ["role"]);
  const chosen = f.value("role", "viewer");
  const fields = `<label for="inv-email">Email<input id="inv-email" name="email" type="email" required value="${escapeHtml(f.value("email"))}"${email.attrs}>${email.message}</label><label for="inv-role">Role<select id="inv-role" name="role"${role.attrs}>${ROLES.map(
    (r) => `<option value="${r}"${r === chosen ? " selected" : ""}>${r}</option>`,
  ).join("")}</select>${role.message}</label>`;
  // A refused role change or removal is summed up above the list.
  const other = failure && failure.form !== "invite" ? new FormErrors(failure, failure.form).summary() : "";
  const invite = owner
    ? `<section aria-labelledby="inv-h"><h2 id="inv-h">Invite someone</h2>${f.summary()}<form method="post" action="${base}" class="filters">${csrf}${fields}<button class="btn primary" type="submit">Send invitation</button></form></section>${other}`
    : other;
  ctx.page(status, { title: `Members · ${project.name}`, project, body: `${invite}<ul class="projects">${r.data.map(row).join("")}</ul>` });
};

const membersPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/members",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (project) await renderMembers(ctx, project);
  },
};

const done = async (ctx: AppContext, project: Project, form: string, r: { ok: true } | { ok: false; problem: Problem }) => {
  if (r.ok) return void ctx.res.redirect(303, membersPath(project.id));
  await showRefusal(ctx, r.problem, form, (f) => renderMembers(ctx, project, f.problem.status, f));
};

const invitePost: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/members",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const body = ctx.req.body as Record<string, unknown>;
    await done(ctx, project, "invite", await ctx.run("invite_project_member", { projectId: project.id, email: body.email, role: body.role }));
  },
};

const memberPost: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/members/:memberId",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const body = ctx.req.body as Record<string, unknown>;
    const memberId = String(ctx.req.params.memberId);
    const r =
      body.action === "remove"
        ? await ctx.run("remove_project_member", { projectId: project.id, memberId, memberType: body.memberType === "invite" ? "invite" : "member" })
        : await ctx.run("update_project_member", { projectId: project.id, memberId, role: body.role });
    await done(ctx, project, `member-${memberId}`, r);
  },
};

export const MEMBER_PAGES: readonly AppPage[] = [membersPage, invitePost, memberPost];
