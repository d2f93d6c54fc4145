import type { Logger } from "@earshot/platform";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import express, { type Request, type Response, Router } from "express";
import type { Backends } from "../backends";
import { checkCsrf, csrfToken, escapeHtml, sendPage } from "../pages/html";
import type { AppSignIn } from "../sessions/app-sign-in";
import { readSessionId } from "../sessions/session-http";
import type { WebSessionStore } from "../sessions/session-store";
import type { OAuthCollections } from "./oauth-store";
import type { EarshotOAuthProvider } from "./provider";
import type { PublicOrigins } from "./public-origins";
import { signInWithPassword, signInFormHtml } from "../pages/sign-in";

// The person's side of the authorization flow: sign in with email and password, then approve or deny
// what the application asks for. Server-rendered, no scripts, CSRF-protected forms; redirects go only to
// the redirect URI the SDK's authorize handler already matched against the client's registration. The
// person's session is the web app's (one sign-in serves both): signed in at /app, the consent page asks
// nothing more; signed in here, the web app opens without asking again.

const SCOPE_TEXT: Record<string, string> = {
  mcp: "Connect to Earshot's MCP server",
  "projects:read": "See your projects and their members",
  "projects:write": "Create and change projects and invite people",
  "keywords:read": "See tracked keywords",
  "keywords:write": "Change tracked keywords",
  "mentions:read": "Read mentions, categories and saved views",
  "mentions:write": "Triage mentions and manage categories and views",
  "alerts:read": "See alert rules",
  "alerts:write": "Change alert rules",
  "integrations:read": "See the LinkedIn connection",
  "integrations:write": "Manage the LinkedIn connection and syncs",
  "usage:read": "See plan usage and limits",
  "usage:write": "Change plan settings",
  "webhooks:read": "See webhook endpoints and deliveries",
  "webhooks:write": "Manage webhook endpoints",
  "account:read": "See your account and API keys",
  "account:write": "Change your account and API keys",
};

/** The CSP source that matches a redirect URI: its origin, or its scheme for apps (cursor:, vscode:). */
const cspSourceOf = (uri: string): string => {
  const url = new URL(uri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
};

export interface OAuthPagesOptions {
  provider: EarshotOAuthProvider;
  collections: OAuthCollections;
  backends: Backends;
  logger: Logger;
  secureCookies: boolean;
  /** Forms are only accepted from Earshot's own pages (and the allowed origins). */
  origins: PublicOrigins;
  now: () => Date;
  /** The signed-in people's sessions, the web app's. */
  sessions: WebSessionStore;
  /** Starts a session once the password is checked (a new id, the old one ended). */
  signIn: AppSignIn;
}

export const oauthPages = (o: OAuthPagesOptions): Router => {
  const router = Router();
  router.use("/oauth/sign-in", express.urlencoded({ extended: false, limit: "16kb" }));
  router.use("/oauth/consent", express.urlencoded({ extended: false, limit: "16kb" }));
  // Browsers send `Origin: null` on a form post from a page whose referrer policy is no-referrer (the
  // default elsewhere); these pages send same-origin so their own posts carry their origin.
  router.use(["/oauth/consent", "/oauth/sign-in"], (_req: Request, res: Response, next) => {
    res.setHeader("Referrer-Policy", "same-origin");
    next();
  });
  // A form posted from a foreign page is refused before anything else (browsers always send Origin on
  // a POST; requests without one are not from a browser form).
  router.post(["/oauth/sign-in", "/oauth/consent"], (req: Request, res: Response, next) => {
    const origin = req.get("origin");
    if (origin === undefined || o.origins.allowsBrowserOrigin(origin)) return next();
    sendPage(res, 403, "Not allowed", "<p>This form can only be sent from Earshot's own pages.</p>");
  });

  const session = (req: Request) => o.sessions.find(readSessionId(req));

  const requestId = (req: Request): string => String((req.method === "GET" ? req.query.request : req.body?.request) ?? "");

  const signInForm = (req: Request, res: Response, request: string, status = 200, error?: string) =>
    sendPage(
      res,
      status,
      "Sign in to Earshot",
      signInFormHtml({
        action: "/oauth/sign-in",
        csrf: csrfToken(req, res, "/oauth", o.secureCookies),
        hidden: { request },
        ...(error !== undefined ? { error } : {}),
      }),
    );

  const expired = (res: Response) =>
    sendPage(res, 400, "Request expired", "<p>This sign-in request expired or was already used. Start again from the application.</p>");

  router.get("/oauth/consent", async (req: Request, res: Response) => {
    const id = requestId(req);
    const request = id ? await o.collections.requests.findById(id) : null;
    if (!request) return expired(res);
    const s = await session(req);
    if (!s) return signInForm(req, res, id);
    const client = await o.provider.clientsStore.getClient(request.clientId);
    const name = client?.client_name ?? request.clientId;
    const scopes = request.scopes.map((sc) => `<li><code>${escapeHtml(sc)}</code>: ${escapeHtml(SCOPE_TEXT[sc] ?? sc)}</li>`).join("");
    const csrf = csrfToken(req, res, "/oauth", o.secureCookies);
    sendPage(
      res,
      200,
      "Allow access?",
      `<p><strong>${escapeHtml(name)}</strong> wants to use your Earshot account (${escapeHtml(s.email)}).</p>
<p>It will be sent back to <strong>${escapeHtml(new URL(request.redirectUri).host)}</strong> and may:</p>
<ul>${scopes}</ul>
<form method="post" action="/oauth/consent">
  <input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="request" value="${escapeHtml(id)}">
  <button type="submit" name="decision" value="approve">Allow</button>
  <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
      [cspSourceOf(request.redirectUri)],
    );
  });

  router.post("/oauth/sign-in", async (req: Request, res: Response) => {
    const id = requestId(req);
    if (!checkCsrf(req)) return sendPage(res, 403, "Form expired", `<p>Please <a href="/oauth/consent?request=${encodeURIComponent(id)}">try again</a>.</p>`);
    if (!(await o.collections.requests.findById(id))) return expired(res);
    const outcome = await signInWithPassword(o.backends, o.logger, req);
    if (!outcome.ok) {
      if (outcome.status === 503) return sendPage(res, 503, "Try again later", `<p>${escapeHtml(outcome.message)}</p>`);
      if (outcome.retryAfter !== undefined) res.setHeader("Retry-After", String(outcome.retryAfter));
      return signInForm(req, res, id, outcome.status, outcome.message);
    }
    await o.signIn(req, res, outcome.user);
    res.redirect(303, `/oauth/consent?request=${encodeURIComponent(id)}`);
  });

  router.post("/oauth/consent", async (req: Request, res: Response) => {
    const id = requestId(req);
    if (!checkCsrf(req)) return sendPage(res, 403, "Form expired", `<p>Please <a href="/oauth/consent?request=${encodeURIComponent(id)}">try again</a>.</p>`);
    const s = await session(req);
    if (!s) return signInForm(req, res, id);
    try {
      const { redirect } = req.body?.decision === "approve" ? await o.provider.issueCode(id, s.userId) : await o.provider.deny(id);
      res.redirect(303, redirect);
    } catch (err) {
      if (err instanceof OAuthError) return expired(res);
      throw err;
    }
  });
  return router;
};
