import { idempotencyField } from "./form-errors";
import type { Mention } from "../catalog/mentions/resource";
import { highlighted, mentionAuthor, safeUrl, sourceIcon } from "../catalog/public-dashboard/render";
import { escapeHtml } from "../pages/html";

// A mention as the inbox and the mention page show it, and its triage forms: small POST forms that work
// without JavaScript, each a catalog operation (update_mention_status, categorize_mention, rate_mention).

export interface TriageOptions {
  csrf: string;
  /** Where the person returns after the post (the page the form is on). */
  back: string;
  canWrite: boolean;
  categories: Array<{ id: string; name: string }>;
}

const STATUS_TEXT: Record<string, string> = { open: "Open", follow_up: "Follow up", done: "Done" };
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

export const mentionPath = (m: Pick<Mention, "id" | "projectId">) => `/app/projects/${encodeURIComponent(m.projectId)}/mentions/${encodeURIComponent(m.id)}`;

export const triageForms = (m: Mention, o: TriageOptions): string => {
  const categoryName = o.categories.find((c) => c.id === m.categoryId)?.name;
  const rated = m.feedback ? (m.feedback.relevant ? "rated relevant" : "rated not relevant") : "";
  const state = `<span class="tag">${escapeHtml(STATUS_TEXT[m.status] ?? m.status)}</span>${categoryName ? `<span class="tag">${escapeHtml(categoryName)}</span>` : ""}${
    m.relevance ? `<span class="tag">${escapeHtml(m.relevance.label)} ${Math.round(m.relevance.score * 100)}%</span>` : ""
  }${rated ? `<span class="tag">${rated}</span>` : ""}`;
  if (!o.canWrite) return `<div class="triage">${state}</div>`;
  const action = `${mentionPath(m)}/triage`;
  // Each form its own idempotency key: a form sent twice (a double click, a retry) changes the mention once.
  const common = () => hidden("csrf", o.csrf) + hidden("back", o.back) + idempotencyField();
  const label = (m.title ?? m.text).slice(0, 40);
  const statusButtons = Object.entries(STATUS_TEXT)
    .filter(([s]) => s !== m.status)
    .map(([s, text]) => `<button class="btn" type="submit" name="status" value="${s}">${text}<span class="visually-hidden">: ${escapeHtml(label)}</span></button>`)
    .join("");
  const categoryId = `cat-${escapeHtml(m.id)}`;
  const options = [`<option value="none"${m.categoryId ? "" : " selected"}>No category</option>`]
    .concat(o.categories.map((c) => `<option value="${escapeHtml(c.id)}"${c.id === m.categoryId ? " selected" : ""}>${escapeHtml(c.name)}</option>`))
    .join("");
  const rate = (relevant: boolean, text: string) =>
    m.feedback?.relevant === relevant ? "" : `<button class="btn" type="submit" name="relevant" value="${relevant}">${text}<span class="visually-hidden">: ${escapeHtml(label)}</span></button>`;
  return `<div class="triage">${state}
<form method="post" action="${action}">${common()}${statusButtons}</form>
${o.categories.length ? `<form method="post" action="${action}">${common()}<label class="visually-hidden" for="${categoryId}">Category</label><select id="${categoryId}" name="categoryId">${options}</select><button class="btn" type="submit">Set category</button></form>` : ""}
<form method="post" action="${action}">${common()}${rate(true, "Relevant")}${rate(false, "Not relevant")}</form></div>`;
};

export const mentionCard = (m: Mention, o: TriageOptions, withLink = true): string => {
  const link = safeUrl(m.url);
  const title = m.title ? `<p class="m-title">${highlighted(m.title, m.matches.filter((t) => t.field === "title"))}</p>` : "";
  return `<li class="mention"><article id="${escapeHtml(m.id)}">
<header class="m-head">${sourceIcon(m.source)}${mentionAuthor({ handle: m.author.handle, name: m.author.name, ...(m.author.url ? { url: m.author.url } : {}) })}
<time datetime="${escapeHtml(m.publishedAt)}">${escapeHtml(m.publishedAt.slice(0, 16).replace("T", " "))} UTC</time></header>
${title}<p class="m-text">${highlighted(m.text, m.matches.filter((t) => t.field === "text"))}</p>
<footer class="m-foot"><span class="tag sent-${escapeHtml(m.sentiment.label)}">${escapeHtml(m.sentiment.label)}</span>${
    withLink ? `<a class="m-open" href="${mentionPath(m)}">Details<span class="visually-hidden"> of this mention</span></a>` : ""
  }${link ? ` <a class="m-link" href="${escapeHtml(link)}" rel="noopener noreferrer nofollow ugc" target="_blank">Open on ${escapeHtml(m.source)}<span class="visually-hidden"> (opens in a new tab)</span></a>` : ""}</footer>
${triageForms(m, o)}
</article></li>`;
};
