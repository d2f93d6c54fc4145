import { escapeHtml } from "../pages/html";
import type { AppContext } from "./app-context";
import type { AppPage } from "./app-routes";
import type { Problem } from "./run-operation";

// The owner's and editors' daily work: keywords and their groups (create; edit a keyword's phrase,
// aliases and excluded terms; move between groups; deactivate and reactivate; rename and delete a group) and alert rules (on/off, instant, digest hour, filters). Each action is a
// catalog operation; a viewer sees the lists without forms. A refused value renders the page again with
// each field's message beside the form that sent it (400), never a 500.

interface Project {
  id: string;
  name: string;
  role: string;
}
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

/** A problem's field messages, shown beside the form (role=alert so a screen reader hears it). */
const problemHtml = (p: Problem | undefined) =>
  p
    ? `<div class="error" role="alert"><p>${escapeHtml(p.detail ?? "That did not work.")}</p>${
        p.errors?.length ? `<ul>${p.errors.map((e) => `<li><code>${escapeHtml(e.path)}</code> ${escapeHtml(e.message)}</li>`).join("")}</ul>` : ""
      }</div>`
    : "";

const projectOf = async (ctx: AppContext): Promise<Project | undefined> => {
  const r = await ctx.run<Project>("get_project", { projectId: String(ctx.req.params.projectId) });
  if (!r.ok) return void ctx.problem(r.problem);
  return r.data;
};

/** Posts answer 303 back to the page; a 400 renders it again with the problem; other problems their page. */
const afterPost = async (ctx: AppContext, result: { ok: true } | { ok: false; problem: Problem }, back: string, again: (p: Problem) => Promise<void>) => {
  if (result.ok) return void ctx.res.redirect(303, back);
  if (result.problem.status === 400 || result.problem.status === 402 || result.problem.status === 409) return again(result.problem);
  ctx.problem(result.problem);
};

const keywordsPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/keywords`;

const renderKeywords = async (ctx: AppContext, project: Project, status = 200, problem?: Problem) => {
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
    const forms = canWrite
      ? `<form method="post" action="${action}">${hidden(ctx, back)}<label for="v-${k.id}">Phrase</label><input id="v-${k.id}" name="value" value="${escapeHtml(k.value)}" required>
<label for="a-${k.id}">Aliases (comma-separated)</label><input id="a-${k.id}" name="aliases" value="${escapeHtml(k.aliases.join(", "))}">
<label for="x-${k.id}">Excluded terms (comma-separated)</label><input id="x-${k.id}" name="excludedTerms" value="${escapeHtml(k.excludedTerms.join(", "))}">
<button class="btn" type="submit" name="action" value="edit">Save<span class="visually-hidden"> ${escapeHtml(k.value)}</span></button></form>
<form method="post" action="${action}">${hidden(ctx, back)}<label for="g-${k.id}">Group of ${escapeHtml(k.value)}</label><select id="g-${k.id}" name="groupId">${groupOptions(k.groupId)}</select><button class="btn" type="submit" name="action" value="move">Move<span class="visually-hidden"> ${escapeHtml(k.value)}</span></button></form>
<form method="post" action="${action}">${hidden(ctx, back)}<button class="btn" type="submit" name="action" value="${k.active ? "deactivate" : "reactivate"}">${k.active ? "Deactivate" : "Track again"}<span class="visually-hidden"> ${escapeHtml(k.value)}</span></button></form>`
      : "";
    return `<li class="card" id="${escapeHtml(k.id)}"><p><strong>${escapeHtml(k.value)}</strong> ${k.active ? "" : `<span class="tag">inactive</span>`}</p><div class="triage">${forms}</div></li>`;
  };
  const sections = groups.data
    .map((g) => {
      const items = keywords.data.filter((k) => k.groupId === g.id);
      const groupForms = canWrite
        ? `<div class="triage"><form method="post" action="${back}/groups/${encodeURIComponent(g.id)}">${hidden(ctx, back)}<label for="gn-${escapeHtml(g.id)}">Name of group ${escapeHtml(g.name)}</label><input id="gn-${escapeHtml(g.id)}" name="name" value="${escapeHtml(g.name)}" required><button class="btn" type="submit" name="action" value="rename">Rename<span class="visually-hidden"> ${escapeHtml(g.name)}</span></button></form><form method="post" action="${back}/groups/${encodeURIComponent(g.id)}">${hidden(ctx, back)}<button class="btn" type="submit" name="action" value="delete">Delete group<span class="visually-hidden"> ${escapeHtml(g.name)}</span></button></form></div>`
        : "";
      return `<section aria-labelledby="grp-${escapeHtml(g.id)}"><h2 id="grp-${escapeHtml(g.id)}">${escapeHtml(g.name)}</h2>${groupForms}${items.length ? `<ul class="projects">${items.map(row).join("")}</ul>` : "<p class=\"muted\">No keywords.</p>"}</section>`;
    })
    .join("");
  const create = canWrite
    ? `<section aria-labelledby="new-kw"><h2 id="new-kw">Track a keyword</h2>${problemHtml(problem)}<form method="post" action="${back}" class="filters">${hidden(ctx, back)}
<label for="new-value">Phrase<input id="new-value" name="value" required></label><label for="new-group">Group<select id="new-group" name="groupId">${groupOptions("")}</select></label><button class="btn primary" type="submit">Add keyword</button></form>
<form method="post" action="${back}/groups" class="filters">${hidden(ctx, back)}<label for="new-group-name">New group<input id="new-group-name" name="name" required></label><button class="btn" type="submit">Add group</button></form></section>`
    : problemHtml(problem);
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
    await afterPost(ctx, r, keywordsPath(project.id), (p) => renderKeywords(ctx, project, p.status, p));
  },
};

const groupCreate: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/keywords/groups",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const r = await ctx.run("create_keyword_group", { projectId: project.id, name: (ctx.req.body as Record<string, unknown>).name });
    await afterPost(ctx, r, keywordsPath(project.id), (p) => renderKeywords(ctx, project, p.status, p));
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
    await afterPost(ctx, r, keywordsPath(project.id), (p) => renderKeywords(ctx, project, p.status, p));
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
    await afterPost(ctx, r, `${keywordsPath(project.id)}#${encodeURIComponent(keywordId)}`, (p) => renderKeywords(ctx, project, p.status, p));
  },
};

const alertsPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/alerts`;

const checkboxes = (name: string, legend: string, values: string[], chosen: string[], prefix: string) =>
  `<fieldset><legend>${legend}</legend>${values
    .map((v) => `<label class="chip" for="${prefix}-${name}-${v}"><input type="checkbox" id="${prefix}-${name}-${v}" name="${name}" value="${v}"${chosen.includes(v) ? " checked" : ""}>${v}</label>`)
    .join("")}</fieldset>`;

/** The project's alerts, or the one an email links to (`only`: its own page, 404 when not of the project). */
const renderAlerts = async (ctx: AppContext, project: Project, status = 200, problem?: Problem, only?: string) => {
  const alerts = await ctx.run<Alert[]>("list_alerts", { projectId: project.id, limit: 100 });
  if (!alerts.ok) return ctx.problem(alerts.problem);
  const shown = only === undefined ? alerts.data : alerts.data.filter((a) => a.id === only);
  if (only !== undefined && shown.length === 0) return ctx.problem({ status: 404 });
  const canWrite = project.role !== "viewer";
  const back = alertsPath(project.id);
  const item = (a: Alert) => {
    const action = `${back}/${encodeURIComponent(a.id)}`;
    const summary = `${a.active ? "On" : "Off"}; ${a.digest.enabled ? `daily digest at ${a.digest.hour}:00` : "no digest"}; ${a.instant ? "instant emails" : "no instant emails"}`;
    const forms = canWrite
      ? `<form method="post" action="${action}">${hidden(ctx, back)}<button class="btn" type="submit" name="active" value="${a.active ? "false" : "true"}">Turn ${a.active ? "off" : "on"}<span class="visually-hidden"> ${escapeHtml(a.name)}</span></button></form>
<form method="post" action="${action}" class="filters">${hidden(ctx, back)}<input type="hidden" name="settings" value="1">
<label for="hour-${a.id}">Digest hour (0–23)<input id="hour-${a.id}" name="hour" type="number" min="0" max="23" value="${a.digest.hour}"></label>
<label class="chip" for="digest-${a.id}"><input type="checkbox" id="digest-${a.id}" name="digest" value="true"${a.digest.enabled ? " checked" : ""}>Daily digest</label>
<label class="chip" for="instant-${a.id}"><input type="checkbox" id="instant-${a.id}" name="instant" value="true"${a.instant ? " checked" : ""}>Instant emails</label>
${checkboxes("sources", "Sources (none: all)", SOURCES, a.filters.sources, a.id)}${checkboxes("sentiments", "Sentiments (none: all)", SENTIMENTS, a.filters.sentiments, a.id)}
<label for="min-${a.id}">Minimum relevance (0–1, empty: none)<input id="min-${a.id}" name="minRelevance" type="number" min="0" max="1" step="0.05" value="${a.filters.minRelevance ?? ""}"></label>
<button class="btn primary" type="submit">Save<span class="visually-hidden"> ${escapeHtml(a.name)}</span></button></form>`
      : "";
    return `<li class="card" id="${escapeHtml(a.id)}"><h2>${escapeHtml(a.name)}</h2><p>${summary}</p>${forms}</li>`;
  };
  const title = only === undefined ? `Alerts · ${project.name}` : `${shown[0]!.name} · ${project.name}`;
  const all = only === undefined ? "" : `<p><a href="${back}">All of the project's alerts</a></p>`;
  ctx.page(status, { title, project, body: `${problemHtml(problem)}<ul class="projects">${shown.map(item).join("")}</ul>${all}` });
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
    const hour = typeof body.hour === "string" && body.hour.trim() !== "" && Number.isFinite(Number(body.hour)) ? Number(body.hour) : body.hour;
    const min = typeof body.minRelevance === "string" ? (body.minRelevance.trim() === "" ? null : Number.isFinite(Number(body.minRelevance)) ? Number(body.minRelevance) : body.minRelevance) : null;
    const change: Record<string, unknown> =
      body.settings === "1"
        ? {
            digest: { enabled: body.digest === "true", hour },
            instant: body.instant === "true",
            // The form does not show keyword and group filters: they are kept as they are, not cleared.
            filters: {
              keywordIds: found.data.filters.keywordIds,
              groupIds: found.data.filters.groupIds,
              sources: listOf(body.sources),
              sentiments: listOf(body.sentiments),
              ...(min === null ? {} : { minRelevance: min }),
            },
          }
        : { active: body.active === "true" };
    const r = await ctx.run("update_alert", { alertId, ...change });
    await afterPost(ctx, r, `${alertsPath(project.id)}#${encodeURIComponent(alertId)}`, (p) => renderAlerts(ctx, project, p.status, p));
  },
};

export const MANAGE_PAGES: readonly AppPage[] = [keywordsPage, groupCreate, groupChange, keywordCreate, keywordChange, alertsPage, alertPage, alertChange];
