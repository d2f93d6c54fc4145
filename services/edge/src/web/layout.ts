import type { Response } from "express";
import { escapeHtml } from "../pages/html";

// The frame of every web app page: landmarks (banner, nav, main), a skip link, the viewport for phones,
// the stylesheet and script from this origin only. Nothing inline, so the CSP stays 'self'.

export const APP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export interface LayoutUser {
  name: string;
  email: string;
  csrf: string;
}

export interface LayoutOptions {
  title: string;
  body: string;
  user?: LayoutUser;
  /** The project whose pages the nav links to. */
  project?: { id: string; name: string };
}

const nav = (o: LayoutOptions): string => {
  if (!o.user) return "";
  const p = o.project;
  const links = [`<li><a href="/app">Projects</a></li>`];
  if (p) {
    const base = `/app/projects/${encodeURIComponent(p.id)}`;
    links.push(`<li><a href="${base}">Inbox</a></li>`, `<li><a href="${base}/keywords">Keywords</a></li>`, `<li><a href="${base}/alerts">Alerts</a></li>`, `<li><a href="${base}/sources">Sources</a></li>`, `<li><a href="${base}/webhooks">Webhooks</a></li>`, `<li><a href="${base}/members">Members</a></li>`);
  }
  return `<nav aria-label="Main"><ul>${links.join("")}</ul></nav>
<form method="post" action="/app/sign-out"><input type="hidden" name="csrf" value="${escapeHtml(o.user.csrf)}"><button type="submit">Sign out <span class="visually-hidden">${escapeHtml(o.user.email)}</span></button></form>`;
};

export const renderLayout = (o: LayoutOptions): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)} · Earshot</title><meta name="robots" content="noindex"><link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/assets/app.css"><script src="/app/assets/app.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="wrap"><a class="brand" href="/app">Earshot</a>${nav(o)}</div></header>
<main id="main" class="wrap"><h1>${escapeHtml(o.title)}</h1>
${o.body}
</main></body></html>`;

export const sendAppPage = (res: Response, status: number, o: LayoutOptions): void => {
  res
    .status(status)
    .setHeader("Cache-Control", "no-store")
    .setHeader("Content-Security-Policy", APP_CSP)
    .setHeader("X-Content-Type-Options", "nosniff")
    // Posts carry their origin (checked), links out to the platforms carry nothing.
    .setHeader("Referrer-Policy", "same-origin")
    .type("html")
    .send(renderLayout(o));
};
