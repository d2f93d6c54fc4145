import { escapeHtml } from "../pages/html";
import { type AppContext, type PageProject, projectOf } from "./app-context";
import type { AppPage } from "./app-routes";
import { type FormFailure, FormErrors, idempotencyField, idempotencyKeyOf, showRefusal } from "./form-errors";

// How a project's collection is going, and its feeds: get_source_health (each source's state, last
// success and error, posts in 24 h, notes such as why it is idle), list_feeds (each feed's last fetch and
// error), and for editors create_feed and delete_feed. A failing feed's email links here.

interface SourceHealth {
  sources: Array<{
    source: string;
    state: string;
    lastSuccessAt: string | null;
    lastError: { at: string; message: string; status: number } | null;
    postsLast24h: number;
    backoffUntil: string | null;
    simulated: boolean;
    notes: string[];
  }>;
}
interface Feed {
  id: string;
  url: string;
  name: string;
  lastFetchedAt: string | null;
  lastError: { at: string; message: string; status: number } | null;
  failingSince: string | null;
  entriesFound: number;
}

const SOURCE_NAMES: Record<string, string> = { x: "X", reddit: "Reddit", youtube: "YouTube", linkedin: "LinkedIn", hackernews: "Hacker News", bluesky: "Bluesky", rss: "Feeds", github: "GitHub" };
const when = (iso: string | null) => (iso ? `${escapeHtml(iso.slice(0, 16).replace("T", " "))} UTC` : "never");

const sourcesPath = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/sources`;

const renderSources = async (ctx: AppContext, project: PageProject, status = 200, failure?: FormFailure) => {
  const [health, feeds] = await Promise.all([
    ctx.run<SourceHealth>("get_source_health", { projectId: project.id }),
    ctx.run<Feed[]>("list_feeds", { projectId: project.id }),
  ]);
  if (!health.ok) return ctx.problem(health.problem);
  if (!feeds.ok) return ctx.problem(feeds.problem);
  const base = sourcesPath(project.id);
  const canWrite = project.role !== "viewer";
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(ctx.session.csrf)}">`;
  const rows = health.data.sources
    .map(
      (s) =>
        `<tr><th scope="row">${escapeHtml(SOURCE_NAMES[s.source] ?? s.source)}${s.simulated ? " <span class=\"tag\">simulated</span>" : ""}</th><td>${escapeHtml(s.state.replace("_", " "))}${
          s.backoffUntil ? ` until ${when(s.backoffUntil)}` : ""
        }</td><td class="num">${s.postsLast24h}</td><td>${when(s.lastSuccessAt)}</td><td>${s.lastError ? `${escapeHtml(s.lastError.message)} (${when(s.lastError.at)})` : ""}${
          s.notes.length ? `<ul>${s.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>` : ""
        }</td></tr>`,
    )
    .join("");
  const feedItem = (f: Feed) =>
    `<li class="card" id="${escapeHtml(f.id)}"><h3>${escapeHtml(f.name)}</h3><p class="muted">${escapeHtml(f.url)}</p><p>Last fetched ${when(f.lastFetchedAt)}; ${f.entriesFound} ${f.entriesFound === 1 ? "entry" : "entries"} found${
      f.failingSince ? `; <strong>failing since ${when(f.failingSince)}</strong>` : ""
    }.</p>${f.lastError ? `<p class="error">${escapeHtml(f.lastError.message)}${f.lastError.status ? ` (HTTP ${f.lastError.status})` : ""}, ${when(f.lastError.at)}</p>` : ""}${
      canWrite
        ? `<form method="post" action="${base}/feeds/${encodeURIComponent(f.id)}">${csrf}<button class="btn" type="submit" name="action" value="delete">Delete feed<span class="visually-hidden"> ${escapeHtml(f.name)}</span></button></form>`
        : ""
    }</li>`;
  const f = new FormErrors(failure, "feed-new");
  const url = f.field("feed-url", ["url"]);
  const name = f.field("feed-name", ["name"]);
  const create = canWrite
    ? `${f.summary()}<form method="post" action="${base}/feeds" class="filters">${csrf}${idempotencyField()}
<label for="feed-url">Feed URL (RSS, Atom, Google Alerts)<input id="feed-url" name="url" type="url" required value="${escapeHtml(f.value("url"))}"${url.attrs}>${url.message}</label>
<label for="feed-name">Name (optional)<input id="feed-name" name="name" maxlength="100" value="${escapeHtml(f.value("name"))}"${name.attrs}>${name.message}</label>
<button class="btn primary" type="submit">Add feed</button></form>`
    : "";
  ctx.page(status, {
    title: `Sources · ${project.name}`,
    project,
    body: `<section aria-labelledby="health-h"><h2 id="health-h">Collection</h2><div class="table-wrap"><table class="deliveries"><thead><tr><th scope="col">Source</th><th scope="col">State</th><th scope="col" class="num">Posts, 24 h</th><th scope="col">Last success</th><th scope="col">Last error, notes</th></tr></thead><tbody>${rows}</tbody></table></div></section>
<section aria-labelledby="feeds-h"><h2 id="feeds-h">Feeds</h2>${create}${feeds.data.length ? `<ul class="projects">${feeds.data.map(feedItem).join("")}</ul>` : "<p>No feeds.</p>"}</section>`,
  });
};

const sourcesPage: AppPage = {
  method: "GET",
  path: "/app/projects/:projectId/sources",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (project) await renderSources(ctx, project);
  },
};

const feedCreate: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/sources/feeds",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const body = ctx.req.body as Record<string, unknown>;
    const named = typeof body.name === "string" && body.name.trim() !== "";
    const r = await ctx.run("create_feed", { projectId: project.id, url: body.url, ...(named ? { name: body.name } : {}) }, idempotencyKeyOf(body));
    if (r.ok) return void ctx.res.redirect(303, sourcesPath(project.id));
    await showRefusal(ctx, r.problem, "feed-new", (f) => renderSources(ctx, project, f.problem.status, f));
  },
};

const feedDelete: AppPage = {
  method: "POST",
  path: "/app/projects/:projectId/sources/feeds/:feedId",
  handler: async (ctx) => {
    const project = await projectOf(ctx);
    if (!project) return;
    const feedId = String(ctx.req.params.feedId);
    // The feed must be of the project in the address.
    const feeds = await ctx.run<Feed[]>("list_feeds", { projectId: project.id });
    if (!feeds.ok) return ctx.problem(feeds.problem);
    if (!feeds.data.some((f) => f.id === feedId)) return ctx.problem({ status: 404 });
    const r = await ctx.run("delete_feed", { feedId });
    if (!r.ok) return ctx.problem(r.problem);
    ctx.res.redirect(303, sourcesPath(project.id));
  },
};

export const SOURCE_PAGES: readonly AppPage[] = [sourcesPage, feedCreate, feedDelete];
