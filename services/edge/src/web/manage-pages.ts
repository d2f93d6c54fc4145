import { escapeHtml } from "../pages/html";
import { type AppContext, type PageProject, projectOf } from "./app-context";
import type { AppPage } from "./app-routes";
import { type FormFailure, FormErrors, idempotencyField, idempotencyKeyOf, showRefusal } from "./form-errors";
import { safeNext } from "../sessions/session-http";
import type { Problem } from "./run-operation";

// The owner's and editors' daily work: keywords and their groups (create; edit a keyword's phrase,
// aliases and excluded terms; move between groups; deactivate and reactivate; rename and delete a group)
// and alert rules (create; on/off, instant, digest hour, filters; one rule's own page). Each action is a
// catalog operation; a viewer sees the lists without forms. A refused value renders the page again with
// each field's message beside the field of the form that sent it (400), what was typed kept, never a 500.

type Project = PageProject;
interface Keyword {
  id: string;
  projectId: string;
  groupId: string;
  value: string;
  aliases: string[];
  excludedTerms: string[];
  active: boolean;
}
interface Group {
  id: string;
  projectId: string;
  name: string;
}
interface Alert {
  id: string;
  projectId: string;
  name: string;
  active: boolean;
  instant: boolean;
  digest: { enabled: boolean; hour: number };
  filters: { keywordIds: string[]; groupIds: string[]; sources: string[]; sentiments: string[]; minRelevance: number | null };
  isDefault: boolean;
}

const SOURCES = ["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"];
const SENTIMENTS = ["positive", "neutral", "negative"];

const hidden = (ctx: AppContext, back: string) => `<input type="hidden" name="csrf" value="${escapeHtml(ctx.session.csrf)}"><input type="hidden" name="back" value="${escapeHtml(back)}">`;


/** Posts answer 303 back to the page; a refusal renders it again with the problem at the form `form` (showRefusal). */
const afterPost = async (ctx: AppContext, result: { ok: true } | { ok: false; problem: Problem }, back: string, form: string, again: (f: FormFailure) => Promise<void>) => {
  if (result.ok) return void ctx.res.redirect(303, back);
  await showRefusal(ctx, result.problem, form, again);
};

/** A labelled text input with its message when the form was refused (what was typed kept). */
const textInput = (f: FormErrors, o: { id: string; name: string; label: string; value?: string; paths?: string[]; attrs?: string }) => {
  const e = f.field(o.id, o.paths ?? [o.name]);
  return `<label for="${escapeHtml(o.id)}">${o.label}</label><input id="${escapeHtml(o.id)}" name="${o.name}" value="${escapeHtml(f.refused ? f.value(o.name) : (o.value ?? ""))}"${o.attrs ?? ""}${e.attrs}>${e.message}`;
};

const keywordsPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/keywords`;

const renderKeywords = async (ctx: AppContext, project: Project, status = 200, failure?: FormFailure) => {
  const [groups, keywords] = await Promise.all([
    ctx.run<Group[]>("list_keyword_groups", { projectId: project.id, limit: 100 }),
    ctx.run<Keyword[]>("list_keywords", { projectId: project.id, limit: 100 }),
  ]);
  if (!groups.ok) return ctx.problem(groups.problem);
  if (!keywords.ok) return ctx.problem(keywords.problem);
  const canWrite = project.role !== "viewer";
  const back = keywordsPath(project.id);
  const groupOptions = (chosen: string) => groups.data.map((g) => `<option value="${escapeHtml(g.id)}"${g.id === chosen ? " selected" : ""}>${escapeHtml(g.name)}</option>`).join("");
  const row = (k: Keyword) => {
    const action = `${back}/${encodeURIComponent(k.id)}`;
    const edit = new FormErrors(failure, `keyword-${k.id}`);
    const fields = [
      textInput(edit, { id: `v-${k.id}`, name: "value", label: "Phrase", value: k.value, attrs: " required" }),
      textInput(edit, { id: `a-${k.id}`, name: "aliases", label: "Aliases (comma-separated)", value: k.aliases.join(", ") }),
      textInput(edit, { id: `x-${k.id}`, name: "excludedTerms", label: "Excluded terms (comma-separated)", value: k.excludedTerms.join(", ") }),
    ].join("\n");
    // A refused move, deactivation or reactivation is summed up above the keyword's forms.
    const other = new FormErrors(failure, failure?.form.startsWith(`keyword-${k.id}-`) ? failure.form : "");
    const forms = canWrite
      ? `${edit.summary()}${other.summary()}<form method="post" action="${action}">${hidden(ctx, back)}${fields}
<button class="btn" type="submit" name="action" value="edit">Save<span class="visually-hidden"> ${escapeHtml(k.value)}</span></button></form>
<form method="post" action="${action}">${hidden(ctx, back)}<label for="g-${k.id}">Group of ${escapeHtml(k.value)}</label><select id="g-${k.id}" name="groupId">${groupOptions(k.groupId)}</select><button class="btn" type="submit" name="action" value="move">Move<span class="visually-hidden"> ${escapeHtml(k.value)}</span></button></form>
<form method="post" action="${action}">${hidden(ctx, back)}<button class="btn" type="submit" name="action" value="${k.active ? "deactivate" : "reactivate"}">${k.active ? "Deactivate" : "Track again"}<span class="visually-hidden"> ${escapeHtml(k.value)}</span></button></form>`
      : "";
    return `<li class="card" id="${escapeHtml(k.id)}"><p><strong>${escapeHtml(k.value)}</strong> ${k.active ? "" : `<span class="tag">inactive</span>`}</p><div class="triage">${forms}</div></li>`;
  };
  const sections = groups.data
    .map((g) => {
      const items = keywords.data.filter((k) => k.groupId === g.id);
      const rename = new FormErrors(failure, `group-${g.id}`);
      const nameField = rename.field(`gn-${g.id}`, ["name"]);
      const groupForms = canWrite
        ? `${rename.summary()}<div class="triage"><form method="post" action="${back}/groups/${encodeURIComponent(g.id)}">${hidden(ctx, back)}<label for="gn-${escapeHtml(g.id)}">Name of group ${escapeHtml(g.name)}</label><input id="gn-${escapeHtml(g.id)}" name="name" value="${escapeHtml(rename.refused ? rename.value("name") : g.name)}" required${nameField.attrs}>${nameField.message}<button class="btn" type="submit" name="action" value="rename">Rename<span class="visually-hidden"> ${escapeHtml(g.name)}</span></button></form><form method="post" action="${back}/groups/${encodeURIComponent(g.id)}">${hidden(ctx, back)}<button class="btn" type="submit" name="action" value="delete">Delete group<span class="visually-hidden"> ${escapeHtml(g.name)}</span></button></form></div>`
        : "";
      return `<section aria-labelledby="grp-${escapeHtml(g.id)}"><h2 id="grp-${escapeHtml(g.id)}">${escapeHtml(g.name)}</h2>${groupForms}${items.length ? `<ul class="projects">${items.map(row).join("")}</ul>` : "<p class=\"muted\">No keywords.</p>"}</section>`;
    })
    .join("");
  const newKeyword = new FormErrors(failure, "keyword-new");
  const newGroup = new FormErrors(failure, "group-new");
  const valueField = newKeyword.field("new-value", ["value"]);
  const groupField = newKeyword.field("new-group", ["groupId"]);
  const groupNameField = newGroup.field("new-group-name", ["name"]);
  const create = canWrite
    ? `<section aria-labelledby="new-kw"><h2 id="new-kw">Track a keyword</h2>${newKeyword.summary()}<form method="post" action="${back}" class="filters">${hidden(ctx, back)}
<label for="new-value">Phrase<input id="new-value" name="value" required value="${escapeHtml(newKeyword.value("value"))}"${valueField.attrs}>${valueField.message}</label><label for="new-group">Group<select id="new-group" name="groupId"${groupField.attrs}>${groupOptions(newKeyword.value("groupId"))}</select>${groupField.message}</label><button class="btn primary" type="submit">Add keyword</button></form>
${newGroup.summary()}<form method="post" action="${back}/groups" class="filters">${hidden(ctx, back)}<label for="new-group-name">New group<input id="new-group-name" name="name" required value="${escapeHtml(newGroup.value("name"))}"${groupNameField.attrs}>${groupNameField.message}</label><button class="btn" type="submit">Add group</button></form></section>`
    : failure
      ? new FormErrors(failure, failure.form).summary()
      : "";
  ctx.page(status, { title: `Keywords · ${project.name}`, project, body: `${create}${sections}` });
};

const keywordsPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/keywords",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (project) await renderKeywords(ctx, project);
  },
};

const keywordCreate: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/keywords",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const body = ctx.req.body as Record<string, unknown>;
    const r = await ctx.run("create_keyword", { projectId: project.id, value: body.value, ...(body.groupId ? { groupId: body.groupId } : {}) });
    await afterPost(ctx, r, keywordsPath(project.id), "keyword-new", (f) => renderKeywords(ctx, project, f.problem.status, f));
  },
};

const groupCreate: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/keywords/groups",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const r = await ctx.run("create_keyword_group", { projectId: project.id, name: (ctx.req.body as Record<string, unknown>).name });
    await afterPost(ctx, r, keywordsPath(project.id), "group-new", (f) => renderKeywords(ctx, project, f.problem.status, f));
  },
};

/** A comma-separated field as the list of phrases it names (blank entries dropped). */
const phrases = (v: unknown): string[] =>
  typeof v === "string"
    ? v
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean)
    : [];

/** Renames or deletes a group of the project (the fixed My brand and Competitors refuse, shown on the page). */
const groupChange: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/keywords/groups/:groupId",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const groupId = String(ctx.req.params.groupId);
    const groups = await ctx.run<Group[]>("list_keyword_groups", { projectId: project.id, limit: 100 });
    if (!groups.ok) return ctx.problem(groups.problem);
    // The group must be of the project in the address.
    if (!groups.data.some((g) => g.id === groupId)) return ctx.problem({ status: 404 });
    const body = ctx.req.body as Record<string, unknown>;
    const r = body.action === "delete" ? await ctx.run("delete_keyword_group", { groupId }) : await ctx.run("update_keyword_group", { groupId, name: body.name });
    await afterPost(ctx, r, keywordsPath(project.id), `group-${groupId}`, (f) => renderKeywords(ctx, project, f.problem.status, f));
  },
};

const keywordChange: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/keywords/:keywordId",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const keywordId = String(ctx.req.params.keywordId);
    // The keyword must be of the project in the address.
    const found = await ctx.run<Keyword>("get_keyword", { keywordId });
    if (!found.ok || found.data.projectId !== project.id) return ctx.problem(found.ok ? { status: 404 } : found.problem);
    const body = ctx.req.body as Record<string, unknown>;
    const change: Record<string, unknown> =
      body.action === "move"
        ? { groupId: body.groupId }
        : body.action === "deactivate"
          ? { active: false }
          : body.action === "reactivate"
            ? { active: true }
            : { value: body.value, aliases: phrases(body.aliases), excludedTerms: phrases(body.excludedTerms) };
    const r = await ctx.run("update_keyword", { keywordId, ...change });
    const form = body.action === "move" || body.action === "deactivate" || body.action === "reactivate" ? `keyword-${keywordId}-${body.action}` : `keyword-${keywordId}`;
    await afterPost(ctx, r, `${keywordsPath(project.id)}#${encodeURIComponent(keywordId)}`, form, (f) => renderKeywords(ctx, project, f.problem.status, f));
  },
};

const alertsPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/alerts`;

const checkboxes = (f: FormErrors, name: string, legend: string, values: string[], chosen: readonly string[], prefix: string, paths: string[]) => {
  const e = f.field(`${prefix}-${name}`, paths);
  const checked = f.values(name, chosen);
  return `<fieldset${e.attrs}><legend>${legend}</legend>${values
    .map((v) => `<label class="chip" for="${prefix}-${name}-${v}"><input type="checkbox" id="${prefix}-${name}-${v}" name="${name}" value="${v}"${checked.includes(v) ? " checked" : ""}>${v}</label>`)
    .join("")}${e.message}</fieldset>`;
};

/** What the settings form shows of a rule (a new rule: the create_alert defaults). */
type AlertSettings = Pick<Alert, "instant" | "digest"> & { filters: Pick<Alert["filters"], "sources" | "sentiments" | "minRelevance"> };
const NEW_ALERT: AlertSettings = { instant: false, digest: { enabled: true, hour: 8 }, filters: { sources: [], sentiments: [], minRelevance: null } };

/** The digest, instant and filter fields of a rule's form, each with its message when the form was refused. */
const settingsFields = (f: FormErrors, prefix: string, a: AlertSettings) => {
  const hour = f.field(`hour-${prefix}`, ["digest.hour", "digest"]);
  const min = f.field(`min-${prefix}`, ["filters.minRelevance"]);
  const on = (name: string, current: boolean) => (f.refused ? f.value(name) === "true" : current);
  return `<label for="hour-${prefix}">Digest hour (0–23)<input id="hour-${prefix}" name="hour" type="number" min="0" max="23" value="${escapeHtml(f.refused ? f.value("hour") : String(a.digest.hour))}"${hour.attrs}>${hour.message}</label>
<label class="chip" for="digest-${prefix}"><input type="checkbox" id="digest-${prefix}" name="digest" value="true"${on("digest", a.digest.enabled) ? " checked" : ""}>Daily digest</label>
<label class="chip" for="instant-${prefix}"><input type="checkbox" id="instant-${prefix}" name="instant" value="true"${on("instant", a.instant) ? " checked" : ""}>Instant emails</label>
${checkboxes(f, "sources", "Sources (none: all)", SOURCES, a.filters.sources, prefix, ["filters.sources"])}${checkboxes(f, "sentiments", "Sentiments (none: all)", SENTIMENTS, a.filters.sentiments, prefix, ["filters.sentiments"])}
<label for="min-${prefix}">Minimum relevance (0–1, empty: none)<input id="min-${prefix}" name="minRelevance" type="number" min="0" max="1" step="0.05" value="${escapeHtml(f.refused ? f.value("minRelevance") : String(a.filters.minRelevance ?? ""))}"${min.attrs}>${min.message}</label>`;
};

/** The project's alerts, or the one an email links to (`only`: its own page, 404 when not of the project). */
const renderAlerts = async (ctx: AppContext, project: Project, status = 200, failure?: FormFailure, only?: string) => {
  const alerts = await ctx.run<Alert[]>("list_alerts", { projectId: project.id, limit: 100 });
  if (!alerts.ok) return ctx.problem(alerts.problem);
  const shown = only === undefined ? alerts.data : alerts.data.filter((a) => a.id === only);
  if (only !== undefined && shown.length === 0) return ctx.problem({ status: 404 });
  const canWrite = project.role !== "viewer";
  const back = only === undefined ? alertsPath(project.id) : `${alertsPath(project.id)}/${encodeURIComponent(only)}`;
  const item = (a: Alert) => {
    const action = `${alertsPath(project.id)}/${encodeURIComponent(a.id)}`;
    const summary = `${a.active ? "On" : "Off"}; ${a.digest.enabled ? `daily digest at ${a.digest.hour}:00` : "no digest"}; ${a.instant ? "instant emails" : "no instant emails"}`;
    const toggle = new FormErrors(failure, `alert-${a.id}-active`);
    const settings = new FormErrors(failure, `alert-${a.id}`);
    const fields = settingsFields(settings, a.id, a);
    const forms = canWrite
      ? `${toggle.summary()}<form method="post" action="${action}">${hidden(ctx, back)}<button class="btn" type="submit" name="active" value="${a.active ? "false" : "true"}">Turn ${a.active ? "off" : "on"}<span class="visually-hidden"> ${escapeHtml(a.name)}</span></button></form>
${settings.summary()}<form method="post" action="${action}" class="filters">${hidden(ctx, back)}<input type="hidden" name="settings" value="1">
${fields}
<button class="btn primary" type="submit">Save<span class="visually-hidden"> ${escapeHtml(a.name)}</span></button></form>`
      : "";
    return `<li class="card" id="${escapeHtml(a.id)}"><h2>${escapeHtml(a.name)}</h2><p>${summary}</p>${forms}</li>`;
  };
  const fresh = new FormErrors(failure, "alert-new");
  const nameField = fresh.field("new-alert-name", ["name"]);
  const freshFields = settingsFields(fresh, "new", NEW_ALERT);
  const create =
    canWrite && only === undefined
      ? `<section aria-labelledby="new-alert"><h2 id="new-alert">New alert</h2><p class="muted">Its emails go to the workspace's owner.</p>${fresh.summary()}<form method="post" action="${back}" class="filters">${hidden(ctx, back)}${idempotencyField()}
<label for="new-alert-name">Name<input id="new-alert-name" name="name" required maxlength="100" value="${escapeHtml(fresh.value("name"))}"${nameField.attrs}>${nameField.message}</label>
${freshFields}
<button class="btn primary" type="submit">Create alert</button></form></section>`
      : "";
  const title = only === undefined ? `Alerts · ${project.name}` : `${shown[0]!.name} · ${project.name}`;
  const all = only === undefined ? "" : `<p><a href="${alertsPath(project.id)}">All of the project's alerts</a></p>`;
  ctx.page(status, { title, project, body: `${create}<ul class="projects">${shown.map(item).join("")}</ul>${all}` });
};

const alertsPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/alerts",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (project) await renderAlerts(ctx, project);
  },
};

/** One alert's page: what the alert and digest emails link to ("Change this alert"). */
const alertPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/alerts/:alertId",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (project) await renderAlerts(ctx, project, 200, undefined, String(ctx.req.params.alertId));
  },
};

const listOf = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === "string" ? [v] : []);

/** A number field as the operation takes it: a number when it reads as one, empty as `empty`, else as typed (refused, named). */
const numberOf = (v: unknown, empty: unknown): unknown => (typeof v !== "string" ? empty : v.trim() === "" ? empty : Number.isFinite(Number(v)) ? Number(v) : v);

/** The settings form's digest, instant and filter values, as create_alert and update_alert take them. */
const settingsOf = (body: Record<string, unknown>, kept: Pick<Alert["filters"], "keywordIds" | "groupIds">) => {
  const min = numberOf(body.minRelevance, null);
  return {
    digest: { enabled: body.digest === "true", hour: numberOf(body.hour, body.hour) },
    instant: body.instant === "true",
    // The form does not show keyword and group filters: they are kept as they are, not cleared.
    filters: { keywordIds: kept.keywordIds, groupIds: kept.groupIds, sources: listOf(body.sources), sentiments: listOf(body.sentiments), ...(min === null ? {} : { minRelevance: min }) },
  };
};

const alertCreate: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/alerts",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const body = ctx.req.body as Record<string, unknown>;
    const r = await ctx.run<Alert>("create_alert", { projectId: project.id, name: body.name, ...settingsOf(body, { keywordIds: [], groupIds: [] }) }, idempotencyKeyOf(body));
    if (r.ok) return void ctx.res.redirect(303, `${alertsPath(project.id)}#${encodeURIComponent(r.data.id)}`);
    await showRefusal(ctx, r.problem, "alert-new", (f) => renderAlerts(ctx, project, f.problem.status, f));
  },
};

const alertChange: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/alerts/:alertId",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const alertId = String(ctx.req.params.alertId);
    const found = await ctx.run<Alert>("get_alert", { alertId });
    if (!found.ok || found.data.projectId !== project.id) return ctx.problem(found.ok ? { status: 404 } : found.problem);
    const body = ctx.req.body as Record<string, unknown>;
    const settings = body.settings === "1";
    const change = settings ? settingsOf(body, found.data.filters) : { active: body.active === "true" };
    const r = await ctx.run("update_alert", { alertId, ...change });
    // Back to the page the form was on (the alert's own page, or all of them), at the alert.
    const back = safeNext(body.back) === `${alertsPath(project.id)}/${encodeURIComponent(alertId)}` ? safeNext(body.back) : `${alertsPath(project.id)}#${encodeURIComponent(alertId)}`;
    const only = back.includes("#") ? undefined : alertId;
    await afterPost(ctx, r, back, settings ? `alert-${alertId}` : `alert-${alertId}-active`, (f) => renderAlerts(ctx, project, f.problem.status, f, only));
  },
};

export const MANAGE_PAGES: readonly AppPage[] = [keywordsPage, groupCreate, groupChange, keywordCreate, keywordChange, alertsPage, alertPage, alertCreate, alertChange];
