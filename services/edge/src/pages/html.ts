import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import { escapeHtml } from "../docs/reference-page";
import { readCookie } from "../http/cookies";

// Small server-rendered pages (invitation acceptance, later sign-in and consent): plain accessible HTML,
// no scripts, CSRF protection by a double-submit cookie bound to the form.

export { escapeHtml };

export const page = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Earshot</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
form{border:1px solid #ddd;border-radius:8px;padding:1rem;margin:1rem 0}
label{display:block;margin:.5rem 0 .2rem;font-weight:600}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem;font:inherit;background:#7e47eb;color:#fff;border:0;border-radius:6px;cursor:pointer}
button.secondary{background:#555}code{overflow-wrap:anywhere}
fieldset{border:0;padding:0;margin:0}legend{font-weight:600}label.choice{font-weight:400}input[type=radio]{width:auto;margin:0 .5rem 0 0}.error{color:#b00020;border-left:3px solid #b00020;padding-left:.5rem}
</style></head><body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;

const CSRF_COOKIE = "earshot_csrf";

/** Issues (or reuses) the CSRF token of this browser for forms under `path`. */
export const csrfToken = (req: Request, res: Response, path: string, secure: boolean): string => {
  const existing = readCookie(req, CSRF_COOKIE);
  const token = existing && /^[\w-]{32,64}$/.test(existing) ? existing : randomBytes(24).toString("base64url");
  res.append(
    "Set-Cookie",
    `${CSRF_COOKIE}=${token}; Path=${path}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}; Max-Age=3600`,
  );
  return token;
};

/** The posted form token must equal the cookie: a cross-site form cannot read or set that cookie. */
export const checkCsrf = (req: Request): boolean => {
  const cookie = readCookie(req, CSRF_COOKIE);
  const posted = typeof req.body?.csrf === "string" ? (req.body.csrf as string) : "";
  if (!cookie || !posted || cookie.length !== posted.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(posted));
};

/**
 * `formTargets`: other places a form on this page may lead to. Browsers apply form-action to the
 * redirects that follow a submission too, so the consent page must name the client's redirect URI.
 */
export const sendPage = (res: Response, status: number, title: string, body: string, formTargets: string[] = []): void => {
  const formAction = ["'self'", ...formTargets].join(" ");
  res
    .status(status)
    .setHeader("Cache-Control", "no-store")
    .setHeader("Content-Security-Policy", `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'`)
    .type("html")
    .send(page(title, body));
};
