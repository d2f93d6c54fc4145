import type { Logger } from "@earshot/platform";
import express, { type Request, type Response, Router } from "express";
import type { Backends } from "../backends";
import type { PublicOrigins } from "../oauth/public-origins";
import { checkCsrf, csrfToken, escapeHtml } from "../pages/html";
import { signInFormHtml, signInWithPassword } from "../pages/sign-in";
import { type AppContext, appContext } from "./app-context";
import { APP_ASSETS } from "./assets";
import { sendAppPage } from "./layout";
import type { OperationRunner } from "./run-operation";
import { appSignIn } from "../sessions/app-sign-in";
import { type UnsubscribeOptions, unsubscribeRoutes } from "./unsubscribe-pages";
import { clearSessionCookie, readSessionId, safeNext, sameSitePost, tokenMatches } from "../sessions/session-http";
import type { WebSession, WebSessionStore } from "../sessions/session-store";

// The web app under /app: sign-in and sign-out, then every page with a session. A page reached without
// one is a 303 to /app/sign-in?next=<that page>; every POST must come from Earshot's own origin and carry
// the session's CSRF token, else 403 before anything runs.

export interface AppPage {
  method: "GET" | "POST";
  path: string;
  handler: (ctx: AppContext) => Promise<void>;
}

export interface WebAppOptions {
  sessions: WebSessionStore;
  runner: OperationRunner;
  backends: Backends;
  logger: Logger;
  origins: PublicOrigins;
  /** Whether cookies must be Secure whatever the request (the public URL is https). */
  secureCookies: boolean;
  pages: readonly AppPage[];
  /** One-click unsubscribe from alert emails (no session: the link's signed token is the permission). */
  unsubscribe: Omit<UnsubscribeOptions, "runner" | "logger">;
}

const forbidden = (res: Response, why: string) =>
  sendAppPage(res, 403, { title: "Not allowed", body: `<p role="alert">${escapeHtml(why)}</p><p><a href="/app">Back to Earshot</a></p>` });

export const webAppRoutes = (o: WebAppOptions): Router => {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: "16kb" });

  router.get(Object.keys(APP_ASSETS), (req: Request, res: Response) => {
    const asset = APP_ASSETS[req.path]!;
    res.setHeader("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
    res.setHeader("Cache-Control", "public, max-age=300");
    res.setHeader("ETag", asset.etag);
    if (req.headers["if-none-match"] === asset.etag) return void res.status(304).end();
    res.status(200).type(asset.type).send(asset.body);
  });

  const signInPage = (req: Request, res: Response, status: number, next: string, error?: string) =>
    sendAppPage(res, status, {
      title: "Sign in to Earshot",
      body: `<div class="narrow">${signInFormHtml({
        action: "/app/sign-in",
        csrf: csrfToken(req, res, "/app", o.secureCookies || req.secure),
        hidden: { next },
        ...(error !== undefined ? { error } : {}),
      })}</div>`,
    });

  router.get("/app/sign-in", async (req: Request, res: Response) => {
    const next = safeNext(req.query.next);
    if (await o.sessions.find(readSessionId(req))) return void res.redirect(303, next);
    signInPage(req, res, 200, next);
  });

  router.post("/app/sign-in", form, async (req: Request, res: Response) => {
    const next = safeNext(req.body?.next);
    if (!sameSitePost(req, o.origins)) return forbidden(res, "This form can only be sent from Earshot's own pages.");
    // No session yet: the token is the double-submit cookie the form was served with.
    if (!checkCsrf(req)) return signInPage(req, res, 403, next, "The form expired. Please sign in again.");
    const outcome = await signInWithPassword(o.backends, o.logger, req);
    if (!outcome.ok) {
      if (outcome.retryAfter !== undefined) res.setHeader("Retry-After", String(outcome.retryAfter));
      return signInPage(req, res, outcome.status, next, outcome.message);
    }
    await appSignIn(o.sessions, o.secureCookies)(req, res, outcome.user);
    res.redirect(303, next);
  });

  router.post("/app/sign-out", form, async (req: Request, res: Response) => {
    const session = await o.sessions.find(readSessionId(req));
    if (session && (!sameSitePost(req, o.origins) || !tokenMatches(req.body?.csrf, session.csrf))) return forbidden(res, "This form can only be sent from Earshot's own pages.");
    await o.sessions.end(readSessionId(req));
    clearSessionCookie(req, res, o.secureCookies);
    res.redirect(303, "/app/sign-in");
  });

  router.use(unsubscribeRoutes({ ...o.unsubscribe, runner: o.runner, logger: o.logger }));

  const withSession = (page: AppPage) => async (req: Request, res: Response) => {
    const session: WebSession | null = await o.sessions.find(readSessionId(req));
    if (!session) {
      const next = page.method === "GET" ? req.originalUrl : safeNext(req.body?.back);
      return void res.redirect(303, `/app/sign-in?next=${encodeURIComponent(next)}`);
    }
    if (page.method === "POST" && (!sameSitePost(req, o.origins) || !tokenMatches(req.body?.csrf, session.csrf))) {
      return forbidden(res, "This form expired or was not sent from Earshot's own pages. Go back, reload the page and try again.");
    }
    try {
      await page.handler(appContext(req, res, session, o.runner));
    } catch (err) {
      if ((err as { code?: string }).code === "unauthorized") {
        await o.sessions.end(readSessionId(req));
        clearSessionCookie(req, res, o.secureCookies);
        return void res.redirect(303, "/app/sign-in");
      }
      o.logger.error({ err, path: req.path }, "page failed");
      sendAppPage(res, 503, { title: "Try again later", body: "<p>Earshot could not show this page right now.</p>" });
    }
  };
  for (const page of o.pages) {
    if (page.method === "GET") router.get(page.path, withSession(page));
    else router.post(page.path, form, withSession(page));
  }
  // Anything else under /app with a session is a plain 404 page; without one, sign in first.
  router.all(/^\/app(\/.*)?$/, withSession({ method: "GET", path: "", handler: async (ctx) => ctx.problem({ status: 404 }) }));
  return router;
};
