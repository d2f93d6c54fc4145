import type { Mention, MentionWithHistory } from "../catalog/mentions/resource";
import { escapeHtml } from "../pages/html";
import type { AppContext } from "./app-context";
import type { AppPage } from "./app-routes";
import { mentionCard, mentionPath, type TriageOptions } from "./mention-html";
import { idempotencyKeyOf } from "./form-errors";
import { safeNext } from "../sessions/session-http";

// The projects list, a project's inbox, a mention's page and the triage post. Each reads and writes
// through catalog operations; a project or mention the person cannot see is the operation's 404.

interface Project {
  id: string;
  name: string;
  description: string;
  role: string;
}

/** list_mentions' filters as the inbox takes them from its query (view= is viewId). */
const FILTER_KEYS = ["status", "keywordId", "groupId", "source", "categoryId", "sentiment", "q", "author", "minRelevance", "relevance", "since", "until"] as const;

const queryOf = (ctx: AppContext): Record<string, string | string[]> => {
  const out: Record<string, string | string[]> = {};
  for (const key of [...FILTER_KEYS, "view", "cursor"]) {
    const v = ctx.req.query[key];
    if (typeof v === "string" && v !== "") out[key] = v;
    else if (Array.isArray(v)) {
      const list = v.filter((x): x is string => typeof x === "string" && x !== "");
      if (list.length) out[key] = list;
    }
  }
  return out;
};

const loadProject = async (ctx: AppContext, projectId: string): Promise<Project | undefined> => {
  const found = await ctx.run<Project>("get_project", { projectId });
  if (!found.ok) {
    ctx.problem(found.problem);
    return undefined;
  }
  return found.data;
};

const categoriesOf = async (ctx: AppContext, projectId: string) => {
  const r = await ctx.run<Array<{ id: string; name: string }>>("list_categories", { projectId, limit: 100 });
  return r.ok ? r.data : [];
};

const projectsPage: AppPage = {
  method: "GET",
  path: "/app",
  handler: async (ctx) => {
    const r = await ctx.run<Project[]>("list_projects", { limit: 100 });
    if (!r.ok) return ctx.problem(r.problem);
    const items = r.data
      .map((p) => `<li><h2><a href="/app/projects/${encodeURIComponent(p.id)}">${escapeHtml(p.name)}</a></h2><p class="muted">${escapeHtml(p.description || "")} You are ${escapeHtml(p.role)}.</p></li>`)
      .join("");
    ctx.page(200, {
      title: "Your projects",
      body: items ? `<ul class="projects">${items}</ul>` : `<p>You are not a member of any project yet. Create one with the API, or ask an owner to invite you.</p>`,
    });
  },
};

const select = (name: string, label: string, values: Array<[string, string]>, chosen: string | string[] | undefined) => {
  const current = Array.isArray(chosen) ? chosen[0] : chosen;
  return `<label for="f-${name}">${label}<select id="f-${name}" name="${name}"><option value="">Any</option>${values
    .map(([v, t]) => `<option value="${escapeHtml(v)}"${v === current ? " selected" : ""}>${escapeHtml(t)}</option>`)
    .join("")}</select></label>`;
};

const SOURCES: Array<[string, string]> = ["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"].map((s) => [s, s]);

const inboxPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId",
  handler: async (ctx) => {
    const projectId = String(ctx.req.params.projectId);
    const project = await loadProject(ctx, projectId);
    if (!project) return;
    const query = queryOf(ctx);
    const { view, ...filters } = query;
    const [categories, views, mentions] = await Promise.all([
      categoriesOf(ctx, projectId),
      ctx.run<Array<{ id: string; name: string }>>("list_mention_views", { projectId, limit: 100 }),
      ctx.run<Mention[]>("list_mentions", { projectId, limit: 25, ...filters, ...(view ? { viewId: view } : {}) }),
    ]);
    const base = `/app/projects/${encodeURIComponent(projectId)}`;
    const here = ctx.req.originalUrl;
    const options: TriageOptions = { csrf: ctx.session.csrf, back: safeNext(here), canWrite: project.role !== "viewer", categories };
    const viewList = views.ok ? views.data : [];
    const form = `<form class="filters" method="get" action="${base}" role="search" aria-label="Filter mentions">
${viewList.length ? select("view", "Saved view", viewList.map((v) => [v.id, v.name]), view) : ""}
${select("status", "Status", [["open", "Open"], ["follow_up", "Follow up"], ["done", "Done"]], filters.status)}
${select("categoryId", "Category", [["none", "No category"], ...categories.map((c): [string, string] => [c.id, c.name])], filters.categoryId)}
${select("source", "Source", SOURCES, filters.source)}
${select("relevance", "Relevance", [["relevant", "Relevant"], ["uncertain", "Uncertain"], ["irrelevant", "Not relevant"]], filters.relevance)}
${select("sentiment", "Sentiment", [["positive", "Positive"], ["neutral", "Neutral"], ["negative", "Negative"]], filters.sentiment)}
<label for="f-minRelevance">Minimum relevance (0 to 1)<input id="f-minRelevance" name="minRelevance" type="number" min="0" max="1" step="0.05" value="${escapeHtml(String(filters.minRelevance ?? ""))}"></label>
<label for="f-q">Words<input id="f-q" name="q" type="search" value="${escapeHtml(String(filters.q ?? ""))}"></label>
<button class="apply" type="submit">Show</button></form>`;
    if (!mentions.ok) {
      // A bad filter is the person's to fix: the form again with the problem named, never a 500.
      const errors = (mentions.problem.errors ?? []).map((e) => `<li><code>${escapeHtml(e.path)}</code> ${escapeHtml(e.message)}</li>`).join("");
      if (mentions.problem.status !== 400) return ctx.problem(mentions.problem);
      return ctx.page(400, { title: project.name, project, body: `${form}<div class="error" role="alert"><p>${escapeHtml(mentions.problem.detail ?? "")}</p><ul>${errors}</ul></div>` });
    }
    const list = mentions.data.map((m) => mentionCard(m, options)).join("");
    const next = mentions.meta.nextCursor;
    const older =
      typeof next === "string" && next
        ? `<p class="pager"><a rel="next" href="${base}?${new URLSearchParams([
            ...Object.entries(query)
              .filter(([k]) => k !== "cursor")
              .flatMap(([k, v]): Array<[string, string]> => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v]])),
            ["cursor", next],
          ]).toString()}">Older mentions</a></p>`
        : "";
    ctx.page(200, {
      title: project.name,
      project,
      body: `${form}<section aria-labelledby="mentions-h"><h2 id="mentions-h">Mentions, newest first</h2>${
        list ? `<ol class="mentions">${list}</ol>` : `<p>No mentions match.</p>`
      }${older}</section>`,
    });
  },
};

const historyText = (h: MentionWithHistory["history"][number]) => `${escapeHtml(h.at.slice(0, 16).replace("T", " "))} UTC: ${escapeHtml(h.field)} ${escapeHtml(h.from ?? "none")} → ${escapeHtml(h.to ?? "none")}`;

/** The mention, when it is of this project; another project's (or workspace's) mention is the same 404. */
const loadMention = async (ctx: AppContext, projectId: string, mentionId: string): Promise<MentionWithHistory | undefined> => {
  const r = await ctx.run<MentionWithHistory>("get_mention", { mentionId });
  if (!r.ok || r.data.projectId !== projectId) {
    ctx.problem(r.ok ? { status: 404 } : r.problem);
    return undefined;
  }
  return r.data;
};

const mentionPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/mentions/:mentionId",
  handler: async (ctx) => {
    const projectId = String(ctx.req.params.projectId);
    const project = await loadProject(ctx, projectId);
    if (!project) return;
    const m = await loadMention(ctx, projectId, String(ctx.req.params.mentionId));
    if (!m) return;
    const categories = await categoriesOf(ctx, projectId);
    const card = mentionCard(m, { csrf: ctx.session.csrf, back: mentionPath(m), canWrite: project.role !== "viewer", categories }, false);
    const matches = m.matches.map((x) => `<li><code>${escapeHtml(x.term)}</code> in the ${x.field} (keyword ${escapeHtml(x.keywordId)}, characters ${x.start}–${x.end})</li>`).join("");
    const reasons = (m.relevance?.reasons ?? []).map((r) => `<li><code>${escapeHtml(r.feature)}</code> ${r.weight >= 0 ? "+" : ""}${r.weight.toFixed(2)}</li>`).join("");
    const history = m.history.map((h) => `<li>${historyText(h)}</li>`).join("");
    ctx.page(200, {
      title: m.title ?? `Mention by ${m.author.name || m.author.handle}`,
      project,
      body: `<ol class="mentions">${card}</ol>
<section aria-labelledby="why-h"><h2 id="why-h">Why it matched</h2><ul>${matches || "<li>No match details were kept.</li>"}</ul></section>
<section aria-labelledby="rel-h"><h2 id="rel-h">Relevance</h2>${
        m.relevance ? `<p>${escapeHtml(m.relevance.label)}, score ${m.relevance.score.toFixed(2)}.</p><ul>${reasons}</ul>` : "<p>Not scored (stored before scoring).</p>"
      }</section>
${m.story ? `<section aria-labelledby="story-h"><h2 id="story-h">Story</h2><p>One of ${m.story.size} mentions of the same story.</p></section>` : ""}
<section aria-labelledby="hist-h"><h2 id="hist-h">History</h2>${history ? `<ol>${history}</ol>` : "<p>No changes yet.</p>"}</section>
<p><a href="/app/projects/${encodeURIComponent(projectId)}">Back to the inbox</a></p>`,
    });
  },
};

/** One triage change: status, category or relevance feedback, whichever the form posted. */
const triagePost: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/mentions/:mentionId/triage",
  handler: async (ctx) => {
    const projectId = String(ctx.req.params.projectId);
    const mentionId = String(ctx.req.params.mentionId);
    const body = (ctx.req.body ?? {}) as Record<string, unknown>;
    // The mention must be of the project in the address, so a form cannot act across projects by its path.
    const m = await loadMention(ctx, projectId, mentionId);
    if (!m) return;
    const key = idempotencyKeyOf(body);
    const result =
      body.status !== undefined
        ? await ctx.run("update_mention_status", { mentionId, status: body.status }, key)
        : body.categoryId !== undefined
          ? await ctx.run("categorize_mention", { mentionId, categoryId: body.categoryId === "none" ? null : body.categoryId }, key)
          : body.relevant !== undefined
            ? await ctx.run("rate_mention", { mentionId, relevant: body.relevant === "true" ? true : body.relevant === "false" ? false : body.relevant }, key)
            : { ok: false as const, problem: { status: 400, detail: "Choose a status, a category or a relevance.", errors: [{ path: "status", message: "is required" }] } };
    if (!result.ok) return ctx.problem(result.problem);
    const back = safeNext(body.back);
    ctx.res.redirect(303, back.includes("#") ? back : `${back}#${encodeURIComponent(mentionId)}`);
  },
};

export const TRIAGE_PAGES: readonly AppPage[] = [projectsPage, inboxPage, mentionPage, triagePost];
