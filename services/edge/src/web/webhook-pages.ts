import { escapeHtml } from "../pages/html";
import type { AppContext } from "./app-context";
import type { AppPage } from "./app-routes";

// Webhook endpoints of a project, each with its delivery log (newest first, 25 a page) and a redeliver
// button per delivery, through list_webhooks, get_webhook, list_webhook_deliveries and
// redeliver_webhook_delivery. Endpoints are created and changed with the API (their secret is shown
// once, which a page would have to keep).

interface Project {
  id: string;
  name: string;
  role: string;
}
interface Endpoint {
  id: string;
  projectId: string | null;
  name: string;
  url: string;
  format: string;
  eventTypes: string[];
  active: boolean;
}
interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  createdAt: string;
}

const projectOf = async (ctx: AppContext): Promise<Project | undefined> => {
  const r = await ctx.run<Project>("get_project", { projectId: String(ctx.req.params.projectId) });
  if (!r.ok) return void ctx.problem(r.problem);
  return r.data;
};

const webhooksPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/webhooks`;

/** The endpoint when it serves this project (or every project of the workspace); else the same 404. */
const endpointOf = async (ctx: AppContext, project: Project): Promise<Endpoint | undefined> => {
  const r = await ctx.run<Endpoint>("get_webhook", { endpointId: String(ctx.req.params.endpointId) });
  if (!r.ok || (r.data.projectId !== null && r.data.projectId !== project.id)) return void ctx.problem(r.ok ? { status: 404 } : r.problem);
  return r.data;
};

const webhooksPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/webhooks",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const r = await ctx.run<Endpoint[]>("list_webhooks", { projectId: project.id, limit: 100 });
    if (!r.ok) return ctx.problem(r.problem);
    const base = webhooksPath(project.id);
    const items = r.data
      .map(
        (e) =>
          `<li><h2><a href="${base}/${encodeURIComponent(e.id)}">${escapeHtml(e.name || e.url)}</a></h2><p class="muted">${escapeHtml(e.url)} · ${escapeHtml(e.format)} · ${
            e.active ? "active" : "inactive"
          } · ${escapeHtml(e.eventTypes.join(", "))}</p></li>`,
      )
      .join("");
    ctx.page(200, {
      title: `Webhooks · ${project.name}`,
      project,
      body: items ? `<ul class="projects">${items}</ul>` : "<p>No webhook endpoints. Create one with the API (create_webhook): its signing secret is shown once, there.</p>",
    });
  },
};

const endpointPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/webhooks/:endpointId",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const endpoint = await endpointOf(ctx, project);
    if (!endpoint) return;
    const cursor = typeof ctx.req.query.cursor === "string" ? ctx.req.query.cursor : undefined;
    const r = await ctx.run<Delivery[]>("list_webhook_deliveries", { endpointId: endpoint.id, limit: 25, ...(cursor ? { cursor } : {}) });
    if (!r.ok) return ctx.problem(r.problem);
    const here = `${webhooksPath(project.id)}/${encodeURIComponent(endpoint.id)}`;
    const canWrite = project.role !== "viewer";
    const rows = r.data
      .map(
        (d) =>
          `<tr id="${escapeHtml(d.id)}"><td>${escapeHtml(d.createdAt.slice(0, 19).replace("T", " "))}</td><td>${escapeHtml(d.eventType)}</td><td>${escapeHtml(d.status)}</td><td class="num">${d.attempts}</td><td>${
            canWrite
              ? `<form method="post" action="${here}/deliveries/${encodeURIComponent(d.id)}/redeliver"><input type="hidden" name="csrf" value="${escapeHtml(ctx.session.csrf)}"><button class="btn" type="submit">Redeliver<span class="visually-hidden"> ${escapeHtml(d.eventType)} of ${escapeHtml(d.createdAt)}</span></button></form>`
              : ""
          }</td></tr>`,
      )
      .join("");
    const next = r.meta.nextCursor;
    ctx.page(200, {
      title: `${endpoint.name || "Webhook"} · ${project.name}`,
      project,
      body: `<p>${escapeHtml(endpoint.url)} · ${escapeHtml(endpoint.format)} · ${endpoint.active ? "active" : "inactive"}</p>
<section aria-labelledby="dl-h"><h2 id="dl-h">Deliveries, newest first</h2>${
        rows
          ? `<div class="table-wrap"><table class="deliveries"><thead><tr><th scope="col">Created (UTC)</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
          : "<p>No deliveries yet.</p>"
      }${typeof next === "string" && next ? `<p class="pager"><a rel="next" href="${here}?cursor=${encodeURIComponent(next)}">Older deliveries</a></p>` : ""}</section>
<p><a href="${webhooksPath(project.id)}">All webhook endpoints</a></p>`,
    });
  },
};

const redeliverPost: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/webhooks/:endpointId/deliveries/:deliveryId/redeliver",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const endpoint = await endpointOf(ctx, project);
    if (!endpoint) return;
    const r = await ctx.run("redeliver_webhook_delivery", { endpointId: endpoint.id, deliveryId: String(ctx.req.params.deliveryId) });
    if (!r.ok) return ctx.problem(r.problem);
    ctx.res.redirect(303, `${webhooksPath(project.id)}/${encodeURIComponent(endpoint.id)}`);
  },
};

export const WEBHOOK_PAGES: readonly AppPage[] = [webhooksPage, endpointPage, redeliverPost];
