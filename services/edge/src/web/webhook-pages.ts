import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "@earshot/webhook/fields";
import { escapeHtml } from "../pages/html";
import { type AppContext, type PageProject, projectOf } from "./app-context";
import type { AppPage } from "./app-routes";
import { type FormFailure, FormErrors, idempotencyField, idempotencyKeyOf, showRefusal } from "./form-errors";

// Webhook endpoints of a project, each with its delivery log (newest first, 25 a page) and a redeliver
// button per delivery, through list_webhooks, get_webhook, list_webhook_deliveries and
// redeliver_webhook_delivery. Editors create endpoints for the project (create_webhook: the answer page
// shows the signing secret, once, as the API does), turn them off and on, send a test event and delete
// them (update_webhook, test_webhook, delete_webhook).

type Project = PageProject;
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

const webhooksPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/webhooks`;

/**
 * The project of the address and its endpoint, when the endpoint serves this project (or every project of
 * the workspace); else the same 404, sent (and undefined).
 */
const projectEndpointOf = async (ctx: AppContext): Promise<{ project: Project; endpoint: Endpoint } | undefined> => {
  const project = await projectOf(ctx);
  if (!project) return undefined;
  const r = await ctx.run<Endpoint>("get_webhook", { endpointId: String(ctx.req.params.endpointId) });
  if (!r.ok || (r.data.projectId !== null && r.data.projectId !== project.id)) return void ctx.problem(r.ok ? { status: 404 } : r.problem);
  return { project, endpoint: r.data };
};

/** The create form's event type choices: every deliverable type, or all of them (`*`). */
const EVENT_CHOICES = ["*", ...WEBHOOK_EVENT_TYPES];

const createForm = (ctx: AppContext, project: Project, failure?: FormFailure) => {
  const f = new FormErrors(failure, "webhook-new");
  const base = webhooksPath(project.id);
  const name = f.field("wh-name", ["name"]);
  const url = f.field("wh-url", ["url"]);
  const format = f.field("wh-format", ["format"]);
  const types = f.field("wh-types", ["eventTypes"]);
  const min = f.field("wh-min", ["minRelevance"]);
  const chosenTypes = f.values("eventTypes", ["mention.created"]);
  const chosenFormat = f.value("format", "standard");
  const fields = `<label for="wh-name">Name<input id="wh-name" name="name" required maxlength="100" value="${escapeHtml(f.value("name"))}"${name.attrs}>${name.message}</label>
<label for="wh-url">URL (https)<input id="wh-url" name="url" type="url" required value="${escapeHtml(f.value("url"))}"${url.attrs}>${url.message}</label>
<label for="wh-format">Format<select id="wh-format" name="format"${format.attrs}>${WEBHOOK_FORMATS.map((v) => `<option value="${v}"${v === chosenFormat ? " selected" : ""}>${v}</option>`).join("")}</select>${format.message}</label>
<fieldset${types.attrs}><legend>Events (Slack and Discord take new mentions only)</legend>${EVENT_CHOICES.map(
    (t) => `<label class="chip" for="wh-type-${escapeHtml(t)}"><input type="checkbox" id="wh-type-${escapeHtml(t)}" name="eventTypes" value="${escapeHtml(t)}"${chosenTypes.includes(t) ? " checked" : ""}>${t === "*" ? "all" : escapeHtml(t)}</label>`,
  ).join("")}${types.message}</fieldset>
<label for="wh-min">Minimum relevance of new mentions (0–1, empty: none)<input id="wh-min" name="minRelevance" type="number" min="0" max="1" step="0.05" value="${escapeHtml(f.value("minRelevance"))}"${min.attrs}>${min.message}</label>
<label class="chip" for="wh-story"><input type="checkbox" id="wh-story" name="oncePerStory" value="true"${f.value("oncePerStory") === "true" ? " checked" : ""}>Once per story</label>`;
  return `<section aria-labelledby="new-wh"><h2 id="new-wh">New endpoint</h2>${f.summary()}<form method="post" action="${base}" class="filters"><input type="hidden" name="csrf" value="${escapeHtml(ctx.session.csrf)}">${idempotencyField()}
${fields}
<button class="btn primary" type="submit">Create endpoint</button></form></section>`;
};

const renderWebhooks = async (ctx: AppContext, project: Project, status = 200, failure?: FormFailure) => {
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
  ctx.page(status, {
    title: `Webhooks · ${project.name}`,
    project,
    body: `${project.role !== "viewer" ? createForm(ctx, project, failure) : ""}${items ? `<ul class="projects">${items}</ul>` : "<p>No webhook endpoints.</p>"}`,
  });
};

const webhooksPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/webhooks",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (project) await renderWebhooks(ctx, project);
  },
};

const numberOr = (v: unknown): unknown => (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v);

/** Creates a project endpoint; the answer page shows its secret once (a chat endpoint's URL is its secret). */
const webhookCreate: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/webhooks",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const body = ctx.req.body as Record<string, unknown>;
    const types = Array.isArray(body.eventTypes) ? body.eventTypes.map(String) : typeof body.eventTypes === "string" ? [body.eventTypes] : [];
    const chat = body.format === "slack" || body.format === "discord";
    const input: Record<string, unknown> = {
      projectId: project.id,
      name: body.name,
      url: body.url,
      format: body.format,
      // A chat endpoint takes new mentions only, its default: the boxes are left out unless changed.
      ...(chat && types.length === 1 && types[0] === "mention.created" ? {} : { eventTypes: types.includes("*") ? ["*"] : types }),
      ...(typeof body.minRelevance === "string" && body.minRelevance.trim() !== "" ? { minRelevance: numberOr(body.minRelevance) } : {}),
      ...(body.oncePerStory === "true" ? { oncePerStory: true } : {}),
    };
    const r = await ctx.run<Endpoint & { secret: string | null }>("create_webhook", input, idempotencyKeyOf(body));
    if (!r.ok) return showRefusal(ctx, r.problem, "webhook-new", (f) => renderWebhooks(ctx, project, f.problem.status, f));
    const e = r.data;
    const here = `${webhooksPath(project.id)}/${encodeURIComponent(e.id)}`;
    const secret = e.secret
      ? `<p>Its signing secret, shown this once: copy it now into your receiver (it verifies each delivery's <code>webhook-signature</code>).</p><p><code class="secret">${escapeHtml(e.secret)}</code></p>`
      : `<p>A ${escapeHtml(e.format)} endpoint is not signed: its URL is the secret, shown masked from now on.</p>`;
    ctx.page(201, { title: `Endpoint created · ${project.name}`, project, body: `<p role="status"><strong>${escapeHtml(e.name)}</strong> receives ${escapeHtml(e.eventTypes.join(", "))}.</p>${secret}<p><a href="${here}">Its page and delivery log</a></p>` });
  },
};

const endpointPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/webhooks/:endpointId",
  handler: async (ctx) => {
    const found = await projectEndpointOf(ctx);
    if (!found) return;
    const { project, endpoint } = found;
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
      body: `<p>${escapeHtml(endpoint.url)} · ${escapeHtml(endpoint.format)} · ${endpoint.active ? "active" : "inactive"}</p>${canWrite ? endpointForms(ctx, here, endpoint) : ""}
<section aria-labelledby="dl-h"><h2 id="dl-h">Deliveries, newest first</h2>${
        rows
          ? `<div class="table-wrap"><table class="deliveries"><thead><tr><th scope="col">Created (UTC)</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
          : "<p>No deliveries yet.</p>"
      }${typeof next === "string" && next ? `<p class="pager"><a rel="next" href="${here}?cursor=${encodeURIComponent(next)}">Older deliveries</a></p>` : ""}</section>
<p><a href="${webhooksPath(project.id)}">All webhook endpoints</a></p>`,
    });
  },
};

const endpointForms = (ctx: AppContext, here: string, e: Endpoint) => {
  const form = (action: string, label: string) =>
    `<form method="post" action="${here}"><input type="hidden" name="csrf" value="${escapeHtml(ctx.session.csrf)}"><button class="btn" type="submit" name="action" value="${action}">${label}</button></form>`;
  return `<div class="triage">${form(e.active ? "deactivate" : "activate", e.active ? "Turn off" : "Turn on")}${form("test", "Send a test event")}${form("delete", "Delete endpoint")}</div>`;
};

/** Turns the endpoint off or on, sends it a test event, or deletes it. */
const endpointPost: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/webhooks/:endpointId",
  handler: async (ctx) => {
    const found = await projectEndpointOf(ctx);
    if (!found) return;
    const { project, endpoint } = found;
    const action = (ctx.req.body as Record<string, unknown>).action;
    const here = `${webhooksPath(project.id)}/${encodeURIComponent(endpoint.id)}`;
    const r =
      action === "delete"
        ? await ctx.run("delete_webhook", { endpointId: endpoint.id })
        : action === "test"
          ? await ctx.run("test_webhook", { endpointId: endpoint.id })
          : action === "activate" || action === "deactivate"
            ? await ctx.run("update_webhook", { endpointId: endpoint.id, active: action === "activate" })
            : { ok: false as const, problem: { status: 400, detail: "Choose turn off, turn on, send a test event or delete.", errors: [{ path: "action", message: "must be activate, deactivate, test or delete" }] } };
    if (!r.ok) return ctx.problem(r.problem);
    ctx.res.redirect(303, action === "delete" ? webhooksPath(project.id) : here);
  },
};

const redeliverPost: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/webhooks/:endpointId/deliveries/:deliveryId/redeliver",
  handler: async (ctx) => {
    const found = await projectEndpointOf(ctx);
    if (!found) return;
    const { project, endpoint } = found;
    const r = await ctx.run("redeliver_webhook_delivery", { endpointId: endpoint.id, deliveryId: String(ctx.req.params.deliveryId) });
    if (!r.ok) return ctx.problem(r.problem);
    ctx.res.redirect(303, `${webhooksPath(project.id)}/${encodeURIComponent(endpoint.id)}`);
  },
};

export const WEBHOOK_PAGES: readonly AppPage[] = [webhooksPage, webhookCreate, endpointPage, endpointPost, redeliverPost];
