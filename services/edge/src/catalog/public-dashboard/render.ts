import { authorDisplay } from "@earshot/contracts";
import { escapeHtml } from "../../pages/html";
import { barsChart, dataTable, type DayCounts, SENTIMENT_ORDER, sentimentChart, SOURCE_NAMES, SOURCE_ORDER, stackedDaysChart } from "./charts";
import type { PublicFace } from "./dashboard-state";
import { type DashboardQuery, PERIODS, queryString } from "./query";

// The dashboard page as HTML: everything readable without JavaScript (the filters are a GET form, "More
// mentions" a link to the next page), every piece of user text escaped, no inline script or style (the
// CSP forbids them), nothing private: what it is handed is already only what the dashboard shows.

export interface DashboardMention {
  source: string;
  url: string;
  title?: string;
  text: string;
  author: { handle: string; name: string; url?: string };
  publishedAt: Date;
  matches: Array<{ term: string; field: string; start: number; end: number }>;
  sentiment: string;
  keywords: string[];
  /** How many more mentions its story holds (the same link or text elsewhere): shown as "and N more". */
  moreInStory?: number;
}

export interface DashboardAnalytics {
  days: Array<{ start: Date; counts: Record<string, number> }>;
  bySource: Record<string, number>;
  byGroup: Array<{ name: string; count: number }>;
  byKeyword: Array<{ name: string; count: number }>;
  bySentiment: Record<string, number>;
  total: number;
  timezone: string;
}

export interface DashboardView {
  face: PublicFace;
  query: DashboardQuery;
  /** Absent on a later page of mentions: the charts are the first page's. */
  analytics?: DashboardAnalytics;
  mentions: DashboardMention[];
  nextCursor?: string;
  /** Every keyword group of the dashboard, for the filter (the groups counted in the period). */
  groupNames: string[];
}

const EXCERPT = 320;

/** http(s) URLs only: a post's link comes from the platform, and anything else is no link. */
export const safeUrl = (url: string | undefined): string | undefined => {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : undefined;
  } catch {
    return undefined;
  }
};

const formatter = (timeZone: string, options: Intl.DateTimeFormatOptions) => {
  try {
    return new Intl.DateTimeFormat("en-GB", { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" });
  }
};

/** The text with each matched range in <mark>, cut to an excerpt around the first match. */
export const highlighted = (text: string, ranges: Array<{ start: number; end: number }>): string => {
  const sorted = ranges
    .filter((r) => Number.isInteger(r.start) && Number.isInteger(r.end) && r.start >= 0 && r.end > r.start && r.end <= text.length)
    .sort((a, b) => a.start - b.start);
  let from = 0;
  let to = text.length;
  if (text.length > EXCERPT) {
    const first = sorted[0]?.start ?? 0;
    from = Math.max(0, Math.min(first - 80, text.length - EXCERPT));
    to = Math.min(text.length, from + EXCERPT);
  }
  let out = from > 0 ? "…" : "";
  let at = from;
  for (const r of sorted) {
    if (r.start < at || r.end > to) continue;
    out += escapeHtml(text.slice(at, r.start)) + `<mark>${escapeHtml(text.slice(r.start, r.end))}</mark>`;
    at = r.end;
  }
  out += escapeHtml(text.slice(at, to)) + (to < text.length ? "…" : "");
  return out;
};

const SOURCE_GLYPH: Record<string, string> = { x: "X", reddit: "r/", youtube: "▶", linkedin: "in", hackernews: "Y", bluesky: "bs", rss: "RSS", github: "GH" };

/** A small badge naming the source, drawn (no image requests). */
export const sourceIcon = (source: string): string =>
  `<svg class="src" viewBox="0 0 24 24" role="img" aria-label="${escapeHtml(SOURCE_NAMES[source] ?? source)}"><rect class="fill-${escapeHtml(source)}" width="24" height="24" rx="6"/><text x="12" y="16.5" text-anchor="middle">${escapeHtml(SOURCE_GLYPH[source] ?? "?")}</text></svg>`;

/**
 * A mention's author: the name (a link to the profile when there is one), and beside it the handle once,
 * when it is not the name again (`authorDisplay`: YouTube's commenters are named by their @handle, its
 * channels' handles are their titles).
 */
export const mentionAuthor = (author: DashboardMention["author"]): string => {
  const shown = authorDisplay(author);
  const link = safeUrl(author.url);
  const name = escapeHtml(shown.name || "Someone");
  return `<span class="m-author">${link ? `<a href="${escapeHtml(link)}" rel="noopener noreferrer nofollow ugc" target="_blank">${name}</a>` : name}${
    shown.handle ? ` <span class="m-handle">${escapeHtml(shown.handle)}</span>` : ""
  }</span>`;
};

const mentionItem = (m: DashboardMention, dateFormat: Intl.DateTimeFormat): string => {
  const link = safeUrl(m.url);
  const title = m.title ? `<p class="m-title">${highlighted(m.title, m.matches.filter((t) => t.field === "title"))}</p>` : "";
  return `<li class="mention"><article>
<header class="m-head">${sourceIcon(m.source)}${mentionAuthor(m.author)}
<time datetime="${m.publishedAt.toISOString()}">${escapeHtml(dateFormat.format(m.publishedAt))}</time></header>
${title}<p class="m-text">${highlighted(m.text, m.matches.filter((t) => t.field === "text"))}</p>${
    m.moreInStory ? `<p class="m-story">and ${m.moreInStory} more ${m.moreInStory === 1 ? "mention" : "mentions"} of this story</p>` : ""
  }
<footer class="m-foot"><span class="tag sent-${escapeHtml(m.sentiment)}">${escapeHtml(m.sentiment)}</span>${m.keywords.map((k) => `<span class="tag">${escapeHtml(k)}</span>`).join("")}${
    link ? `<a class="m-link" href="${escapeHtml(link)}" rel="noopener noreferrer nofollow ugc" target="_blank">View on ${escapeHtml(SOURCE_NAMES[m.source] ?? m.source)}<span class="visually-hidden"> (opens in a new tab)</span></a>` : ""
  }</footer>
</article></li>`;
};

const filtersForm = (v: DashboardView, base: string): string => {
  const sources = v.face.enabledSources.length > 0 ? SOURCE_ORDER.filter((s) => v.face.enabledSources.includes(s) || v.query.sources.includes(s)) : SOURCE_ORDER;
  const groups = [...new Set([...v.groupNames, ...v.query.groups])];
  const checkbox = (name: string, value: string, label: string, checked: boolean, i: string) =>
    `<label class="chip"><input type="checkbox" name="${name}" value="${escapeHtml(value)}" id="${name}-${i}"${checked ? " checked" : ""}> ${escapeHtml(label)}</label>`;
  return `<form class="filters" method="get" action="${escapeHtml(base)}" id="filters">
<fieldset class="period"><legend>Period</legend>${PERIODS.map(
    (p) => `<label class="chip"><input type="radio" name="days" value="${p}"${v.query.days === p ? " checked" : ""}> ${p} days</label>`,
  ).join("")}</fieldset>
<fieldset><legend>Sources</legend>${sources.map((s, i) => checkbox("source", s, SOURCE_NAMES[s] ?? s, v.query.sources.includes(s), String(i))).join("")}</fieldset>
${groups.length > 0 ? `<fieldset><legend>Keyword groups</legend>${groups.map((g, i) => checkbox("group", g, g, v.query.groups.includes(g), String(i))).join("")}</fieldset>` : ""}
<button type="submit" class="apply">Apply filters</button>
</form>`;
};

const card = (id: string, heading: string, chart: string, table: string, note = ""): string =>
  `<section class="card" aria-labelledby="${id}-h"><h2 id="${id}-h">${escapeHtml(heading)}</h2>${note}${chart}${table}</section>`;

const chartsOf = (v: DashboardView, a: DashboardAnalytics): string => {
  const { face, query } = v;
  const dayFormat = formatter(a.timezone, { day: "numeric", month: "short" });
  const days: DayCounts[] = a.days.map((d) => ({ label: dayFormat.format(d.start), counts: d.counts }));
  const sourceRows = SOURCE_ORDER.filter((s) => (a.bySource[s] ?? 0) > 0);
  const groupTotal = a.byGroup.reduce((sum, g) => sum + g.count, 0);
  const sentimentTotal = SENTIMENT_ORDER.reduce((sum, s) => sum + (a.bySentiment[s] ?? 0), 0);
  const pct = (count: number, of: number) => `${Math.round((100 * count) / Math.max(1, of))}%`;
  const legend = `<ul class="legend">${SOURCE_ORDER.filter((s) => face.enabledSources.includes(s) || (a.bySource[s] ?? 0) > 0)
    .map((s) => `<li><span class="swatch fill-${s}" aria-hidden="true"></span>${SOURCE_NAMES[s]} <span class="muted">${a.bySource[s] ?? 0}</span></li>`)
    .join("")}</ul>`;
  const sentimentLegend = `<ul class="legend">${SENTIMENT_ORDER.map(
    (s) => `<li><span class="swatch fill-${s}" aria-hidden="true"></span>${s} <span class="muted">${pct(a.bySentiment[s] ?? 0, sentimentTotal)}</span></li>`,
  ).join("")}</ul>`;
  const charts = [
    card(
      "volume",
      "Mentions per day",
      stackedDaysChart("chart-volume", days, `Mentions per day over the last ${query.days} days, stacked by source: ${a.total} in all.`),
      dataTable("Mentions per day by source", ["Day", ...sourceRows.map((s) => SOURCE_NAMES[s] ?? s), "Total"], days.map((d) => [d.label, ...sourceRows.map((s) => d.counts[s] ?? 0), sourceRows.reduce((n, s) => n + (d.counts[s] ?? 0), 0)])),
      legend,
    ),
    card(
      "groups",
      "Share per keyword group",
      a.byGroup.length > 0 ? barsChart("chart-groups", a.byGroup, `Mentions per keyword group: ${a.byGroup.map((g) => `${g.name} ${g.count}`).join(", ")}.`, groupTotal, "fill-group") : `<p class="empty">No mentions in this period.</p>`,
      a.byGroup.length > 0 ? dataTable("Mentions per keyword group", ["Keyword group", "Mentions", "Share"], a.byGroup.map((g) => [g.name, g.count, pct(g.count, groupTotal)])) : "",
    ),
    card(
      "keywords",
      "Top keywords",
      a.byKeyword.length > 0 ? barsChart("chart-keywords", a.byKeyword, `Most mentioned keywords: ${a.byKeyword.map((k) => `${k.name} ${k.count}`).join(", ")}.`) : `<p class="empty">No mentions in this period.</p>`,
      a.byKeyword.length > 0 ? dataTable("Mentions per keyword", ["Keyword", "Mentions"], a.byKeyword.map((k) => [k.name, k.count])) : "",
    ),
    card(
      "sentiment",
      "Sentiment",
      sentimentChart("chart-sentiment", a.bySentiment, `Sentiment of the mentions: ${SENTIMENT_ORDER.map((s) => `${s} ${a.bySentiment[s] ?? 0}`).join(", ")}.`),
      dataTable("Mentions by sentiment", ["Sentiment", "Mentions", "Share"], SENTIMENT_ORDER.map((s) => [s, a.bySentiment[s] ?? 0, pct(a.bySentiment[s] ?? 0, sentimentTotal)])),
      sentimentLegend,
    ),
  ].join("\n");
  return `<p class="summary"><strong>${a.total}</strong> mention${a.total === 1 ? "" : "s"} in the last ${query.days} days${query.sources.length ? ` on ${query.sources.map((s) => escapeHtml(SOURCE_NAMES[s] ?? s)).join(", ")}` : ""}${query.groups.length ? ` in ${query.groups.map((g) => escapeHtml(g)).join(", ")}` : ""}.</p>
<div class="grid">
${charts}
</div>`;
};

export const renderDashboard = (v: DashboardView, base: string): string => {
  const { face, query } = v;
  const timezone = v.analytics?.timezone ?? face.timezone;
  const dateFormat = formatter(timezone, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
  const more = v.nextCursor
    ? `<p class="more-wrap"><a class="more" rel="next" href="${escapeHtml(base + queryString({ ...query, cursor: v.nextCursor }))}">More mentions</a></p>`
    : "";
  const list =
    v.mentions.length > 0
      ? `<ol class="mentions" id="mention-list">${v.mentions.map((m) => mentionItem(m, dateFormat)).join("\n")}</ol>${more}`
      : `<p class="empty">No mentions match these filters in the last ${query.days} days.</p>`;
  const website = safeUrl(face.websiteUrl);
  const color = /^#[0-9a-fA-F]{6}$/.test(face.color) ? face.color : "#7e47eb";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(face.name)} · mentions</title>
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head><body>
<a class="skip" href="#mentions-h">Skip to the mentions</a>
<header class="hero"><div class="wrap">
<svg class="badge" viewBox="0 0 48 48" aria-hidden="true"><rect width="48" height="48" rx="12" fill="${color}"/><text x="24" y="32" text-anchor="middle">${escapeHtml(face.icon)}</text></svg>
<div><h1>${escapeHtml(face.name)}</h1>
${face.description ? `<p class="lede">${escapeHtml(face.description)}</p>` : ""}
${website ? `<p><a href="${escapeHtml(website)}" rel="noopener noreferrer" target="_blank">${escapeHtml(new URL(website).host)}</a></p>` : ""}
</div></div></header>
<main class="wrap" id="dashboard">
${face.paused ? `<p class="note" role="status">Collection is paused: no new mentions are being gathered. The mentions collected so far are shown.</p>` : ""}
${filtersForm(v, base)}
<div id="results" aria-live="polite">
${v.analytics ? chartsOf(v, v.analytics) : `<p class="summary">Older mentions of the last ${query.days} days. <a href="${escapeHtml(base + queryString({ ...query, cursor: undefined }))}">Back to the newest, with the charts</a></p>`}
<section aria-labelledby="mentions-h"><h2 id="mentions-h">Latest mentions</h2>
${list}
</section>
</div>
</main>
<footer class="foot wrap"><p>A read-only dashboard published with Earshot. Times are in ${escapeHtml(timezone)}.</p></footer>
</body></html>`;
};

/** The plain page of a dashboard that is not there (unknown, disabled, archived or paused by deactivation alike). */
export const renderNotFound = (): string => plainPage("Dashboard not found", "<p>There is no public dashboard at this address. The link may be mistyped, or its owner stopped sharing it.</p>");

export const plainPage = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><meta name="robots" content="noindex"><link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/dashboard.css"></head>
<body><main class="wrap plain"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
