import { createHash } from "node:crypto";
import { DomainError, type FieldError, isDomainError, SOURCE_WORDS } from "@earshot/platform";
import type { mentionV1 } from "@earshot/proto";
import type { Request, Response } from "express";
import { sendProblem, toProblem } from "../../http/problem";
import { definePage, type PageDeps } from "../../pages/page";
import { addressKeyOf } from "../../pipeline/address-key";
import { ASSETS } from "./assets";
import type { PublicFace } from "./dashboard-state";
import { type DashboardQuery, PAGE_SIZE, parseDashboardQuery, urlPathOf } from "./query";
import { type DashboardAnalytics, type DashboardMention, plainPage, renderDashboard, renderNotFound } from "./render";

// The public dashboard at the share URL, `/p/{shareId}`, and its data as JSON for embedding
// (`mentions.json`, `analytics.json`). No credential: the share id is the authorization, checked by the
// project service (the public face, through the edge's event-kept copy) and the mention service (the
// data). Every answer is the same plain 404 for a share id that is unknown, disabled, archived or paused
// by deactivation; a bad query value is a 400 naming the parameter. Anyone may embed the page (frame
// ancestors open) and read the JSON from any origin (CORS open); answers are cacheable for a minute and
// revalidated by ETag; each client address has EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE requests a minute.

const MAX_AGE_SECONDS = 60;

/** Scripts and styles from this origin only, nothing inline, no plugins, framing by anyone. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors *";

const securityHeaders = (res: Response): void => {
  res.setHeader("Content-Security-Policy", DASHBOARD_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  // Links out to the platforms must not carry the share URL with them.
  res.setHeader("Referrer-Policy", "no-referrer");
  // Embeddable: frame-ancestors governs framing, so the frame's default SAMEORIGIN is dropped here.
  res.removeHeader("X-Frame-Options");
  res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
};

/** A cacheable answer with its ETag; a matching If-None-Match gets 304 without the body. */
const sendCached = (req: Request, res: Response, type: string, body: string): void => {
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  res.setHeader("Cache-Control", `public, max-age=${MAX_AGE_SECONDS}`);
  res.setHeader("ETag", etag);
  res.setHeader("Vary", "Accept-Encoding");
  const match = req.headers["if-none-match"];
  if (typeof match === "string" && match.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).type(type).send(body);
};

const sendHtml = (res: Response, status: number, html: string): void => {
  res.status(status).setHeader("Cache-Control", "no-store").type("html").send(html);
};

const badRequestPage = (errors: FieldError[]) =>
  plainPage(
    "This dashboard address is not right",
    `<p>Part of the address is not one this dashboard understands:</p><ul>${errors.map((e) => `<li><code>${escape(e.path)}</code> ${escape(e.message)}</li>`).join("")}</ul><p><a href="./">Open the dashboard without filters</a>.</p>`,
  );

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Kind = "html" | "json";

const refuse = (req: Request, res: Response, kind: Kind, err: DomainError): void => {
  if (kind === "json") {
    res.setHeader("Cache-Control", "no-store");
    sendProblem(res, toProblem(err, req.requestId, req.path));
    return;
  }
  if (err.code === "rate_limited") {
    const retry = err.details.retryAfter;
    if (typeof retry === "number") res.setHeader("Retry-After", String(retry));
    sendHtml(res, 429, plainPage("Too many requests", "<p>This address asked for this dashboard too often. Wait a minute and reload.</p>"));
  } else if (err.code === "not_found") sendHtml(res, 404, renderNotFound());
  else if (err.code === "validation_failed") sendHtml(res, 400, badRequestPage(err.errors));
  else sendHtml(res, 503, plainPage("Try again later", "<p>This dashboard could not be loaded right now.</p>"));
};

const notFound = () => new DomainError("not_found", "There is no public dashboard at this address.");

/** The per-address budget of the dashboard routes; refuses with rate_limited when spent. */
const admit = async (req: Request, res: Response, deps: PageDeps): Promise<void> => {
  const limiter = deps.dashboards.limiter;
  if (!limiter) return;
  const decision = await limiter.take(`dashboard:${addressKeyOf(req.ip ?? "")}`);
  for (const [k, v] of Object.entries(decision.headers)) res.setHeader(k, v);
  if (!decision.allowed) throw new DomainError("rate_limited", "Too many dashboard requests from this address.", { details: { retryAfter: decision.resetSeconds } });
};

const shareIdOf = (req: Request): string => {
  const id = req.params.shareId;
  return typeof id === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : "";
};

const faceOf = async (deps: PageDeps, shareId: string): Promise<PublicFace> => {
  const face = shareId ? await deps.dashboards.state.get(shareId) : undefined;
  if (!face) throw notFound();
  return face;
};

const filtersOf = (q: DashboardQuery): mentionV1.PublicMentionFilters => ({ sources: q.sources, groupNames: q.groups, days: q.days });

/** The mention service names `groupNames.0`; the URL calls it `group`. */
const inUrlTerms = (err: unknown): unknown => {
  if (isDomainError(err) && err.code === "validation_failed") {
    return new DomainError("validation_failed", err.message, { errors: err.errors.map((e) => ({ path: urlPathOf(e.path), message: e.message })) });
  }
  return err;
};

const mentionsOf = async (deps: PageDeps, shareId: string, q: DashboardQuery) => {
  const res = await deps.backends.mention.listPublicMentions({ shareId, filters: filtersOf(q), limit: q.limit, cursor: q.cursor ?? "" });
  const mentions: DashboardMention[] = res.mentions.map((m) => ({
    source: SOURCE_WORDS.word(m.source) ?? "unknown",
    url: m.url,
    ...(m.title !== undefined ? { title: m.title } : {}),
    text: m.text,
    author: { handle: m.author?.handle ?? "", name: m.author?.name ?? "", ...(m.author?.url ? { url: m.author.url } : {}) },
    publishedAt: m.publishedAt ?? new Date(0),
    matches: m.matches.map((t) => ({ term: t.term, field: t.field, start: t.start, end: t.end })),
    sentiment: m.sentiment,
    keywords: [...m.keywords],
    moreInStory: m.moreInStory,
  }));
  return { mentions, nextCursor: res.nextCursor || undefined };
};

const counts = (m: Record<string, string>): Record<string, number> => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Number(v)]));

const analyticsOf = async (deps: PageDeps, shareId: string, q: DashboardQuery): Promise<DashboardAnalytics> => {
  const a = await deps.backends.mention.getPublicAnalytics({ shareId, filters: filtersOf(q) });
  return {
    days: a.days.map((d) => ({ start: d.start ?? new Date(0), counts: counts(d.counts) })),
    bySource: counts(a.bySource),
    byGroup: a.byGroup.map((g) => ({ name: g.name, count: Number(g.count) })),
    byKeyword: a.byKeyword.map((k) => ({ name: k.name, count: Number(k.count) })),
    bySentiment: counts(a.bySentiment),
    total: Number(a.total),
    timezone: a.timezone,
  };
};

/** Runs a dashboard route: headers, budget, query; any refusal answered in the route's kind. */
const route = (kind: Kind, run: (req: Request, res: Response, deps: PageDeps, shareId: string, q: DashboardQuery) => Promise<void>) =>
  async (req: Request, res: Response, deps: PageDeps): Promise<void> => {
    securityHeaders(res);
    if (kind === "json") {
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.setHeader("Access-Control-Expose-Headers", "ETag, RateLimit, RateLimit-Policy, Retry-After");
    }
    try {
      await admit(req, res, deps);
      const { query, errors } = parseDashboardQuery(req, { limit: kind === "json" });
      if (errors.length > 0) throw new DomainError("validation_failed", "Some query parameters are not valid.", { errors });
      await run(req, res, deps, shareIdOf(req), query);
    } catch (raw) {
      const err = inUrlTerms(raw);
      if (!isDomainError(err) || !["not_found", "validation_failed", "rate_limited"].includes(err.code)) {
        deps.logger.error({ err, path: req.path }, "public dashboard failed");
        refuse(req, res, kind, new DomainError("unavailable", "The dashboard could not be loaded right now."));
        return;
      }
      refuse(req, res, kind, err);
    }
  };

const PAGE_PATH = "/p/:shareId";

export const dashboardPage = definePage({
  title: "Public dashboard",
  method: "GET",
  paths: [PAGE_PATH],
  handler: route("html", async (req, res, deps, shareId, query) => {
    const face = await faceOf(deps, shareId);
    const html = { ...query, limit: PAGE_SIZE };
    // A later page of mentions is the list alone: the charts are the period's, already on the first page.
    const [analytics, list] = await Promise.all([query.cursor ? Promise.resolve(undefined) : analyticsOf(deps, shareId, html), mentionsOf(deps, shareId, html)]);
    const base = `/p/${shareId}`;
    sendCached(req, res, "html", renderDashboard({ face, query: html, analytics, ...list, groupNames: analytics?.byGroup.map((g) => g.name) ?? [] }, base));
  }),
});

export const dashboardJson = definePage({
  title: "Public dashboard data",
  method: "GET",
  paths: [`${PAGE_PATH}/mentions.json`, `${PAGE_PATH}/analytics.json`],
  handler: route("json", async (req, res, deps, shareId, query) => {
    await faceOf(deps, shareId);
    if (req.path.endsWith("/mentions.json")) {
      const { mentions, nextCursor } = await mentionsOf(deps, shareId, query);
      const data = mentions.map((m) => ({ ...m, publishedAt: m.publishedAt.toISOString() }));
      sendCached(req, res, "application/json", JSON.stringify({ data, meta: { nextCursor: nextCursor ?? null, limit: query.limit, days: query.days } }));
      return;
    }
    const a = await analyticsOf(deps, shareId, query);
    const data = { ...a, days: a.days.map((d) => ({ start: d.start.toISOString(), counts: d.counts })), period: { days: query.days } };
    sendCached(req, res, "application/json", JSON.stringify({ data }));
  }),
});

export const dashboardAssets = definePage({
  title: "Public dashboard stylesheet and script",
  method: "GET",
  paths: Object.keys(ASSETS),
  handler: async (req, res) => {
    const asset = ASSETS[req.path];
    if (!asset) throw notFound();
    res.setHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
    res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
    res.setHeader("Cache-Control", "public, max-age=300");
    res.setHeader("ETag", asset.etag);
    if (req.headers["if-none-match"] === asset.etag) {
      res.status(304).end();
      return;
    }
    res.status(200).type(asset.type).send(asset.body);
  },
});

export const publicDashboardPages = [dashboardPage, dashboardJson, dashboardAssets];
