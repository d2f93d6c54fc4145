import { timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import { readCookie } from "../http/cookies";
import type { PublicOrigins } from "../oauth/public-origins";

// The signed-in person's cookie and the checks every form post passes. One session serves the web app
// (/app) and the OAuth sign-in and consent pages (/oauth), so the cookie's Path is /: the API and MCP
// never read it (they take Bearer credentials only). It is HttpOnly (no script reads it), SameSite=Lax
// (sent on a link followed from an email, never on a cross-site post), and Secure whenever the public
// URL is https or the request came over https (as "trust proxy" believes X-Forwarded-Proto); it has no
// Max-Age: the store decides when the session ends.

export const APP_SESSION_COOKIE = "earshot_app";

export const readSessionId = (req: Request): string | undefined => readCookie(req, APP_SESSION_COOKIE);

const secureFor = (req: Request, secureCookies: boolean) => secureCookies || req.secure;

export const setSessionCookie = (req: Request, res: Response, id: string, secureCookies: boolean): void => {
  res.append("Set-Cookie", `${APP_SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax${secureFor(req, secureCookies) ? "; Secure" : ""}`);
};

export const clearSessionCookie = (req: Request, res: Response, secureCookies: boolean): void => {
  // Path=/app too: the cookie of a release that scoped it to the web app.
  for (const path of ["/", "/app"]) res.append("Set-Cookie", `${APP_SESSION_COOKIE}=; Path=${path}; HttpOnly; SameSite=Lax${secureFor(req, secureCookies) ? "; Secure" : ""}; Max-Age=0`);
};

/**
 * Where to go after signing in: a path under /app only. Anything else (another origin, `//host`, a
 * backslash some browsers read as a slash, control characters) is /app, so the link is no open redirect.
 */
export const safeNext = (value: unknown): string => {
  if (typeof value !== "string" || value.length > 2000) return "/app";
  if (!/^\/app(?:[/?#]|$)/.test(value) || /[\\\s]/.test(value) || [...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) || value.startsWith("//")) return "/app";
  return value;
};

/**
 * A form post comes from Earshot's own pages: its Origin (browsers send it on every POST) is one of
 * Earshot's; without Origin, Sec-Fetch-Site must not say another site. The CSRF token is checked besides.
 */
export const sameSitePost = (req: Request, origins: PublicOrigins): boolean => {
  const origin = req.get("origin");
  if (origin !== undefined) return origin !== "null" && origins.allowsBrowserOrigin(origin);
  const site = req.get("sec-fetch-site");
  return site === undefined || site === "same-origin" || site === "none";
};

/** The posted token equals the session's, compared in constant time. */
export const tokenMatches = (posted: unknown, expected: string): boolean => {
  if (typeof posted !== "string" || posted.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(posted), Buffer.from(expected));
};
