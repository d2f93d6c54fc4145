import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { escapeHtml, redirect, sendJson, sendText } from "./http";
import { SIM_LINKEDIN_MEMBERS, type SimLinkedinMember } from "./linkedin-members";
import type { SimRequest } from "./platform-simulator";
import { SIM_CREDENTIALS } from "./settings";
import type { SimWorld } from "./world";

// LinkedIn's OAuth 2.0 (3-legged): the authorization page where a simulated member signs in and allows
// or cancels, and the token endpoint that exchanges a code once. Codes live 30 minutes; access tokens
// 60 days (5,184,000 s), refresh tokens a year, as LinkedIn issues them.

const CODE_TTL_MS = 30 * 60_000;
const ACCESS_TTL_S = 5_184_000;
const REFRESH_TTL_S = 31_536_000;

interface Authorization {
  member: SimLinkedinMember;
  redirectUri: string;
  scope: string;
  expiresAtMs: number;
  used: boolean;
}

export interface IssuedToken {
  member: SimLinkedinMember;
  scope: string;
  expiresAtMs: number;
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
  `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1d2226}h1{font-size:1.4rem}` +
  `label{display:block;margin:.5rem 0}button{margin:1rem .5rem 0 0;padding:.5rem 1.2rem;font-size:1rem}.note{color:#666}</style></head><body>${body}</body></html>`;

const badRequest = (res: ServerResponse, message: string) => sendText(res, 400, page("LinkedIn (simulated): bad request", `<h1>Bad request</h1><p>${escapeHtml(message)}</p>`), "text/html; charset=utf-8");

const AUTH_PARAMS = ["response_type", "client_id", "redirect_uri", "state", "scope"] as const;

type AuthParams = Record<(typeof AUTH_PARAMS)[number], string>;

/** The authorization request's parameters, or what is wrong with them. */
const authParamsOf = (source: URLSearchParams): AuthParams | string => {
  const out = Object.fromEntries(AUTH_PARAMS.map((k) => [k, source.get(k) ?? ""])) as AuthParams;
  for (const k of ["response_type", "client_id", "redirect_uri", "scope"] as const) if (!out[k]) return `${k} is required`;
  if (out.response_type !== "code") return "response_type must be code";
  if (out.client_id !== SIM_CREDENTIALS.linkedinClientId) return "The client_id is not known to LinkedIn";
  try {
    const u = new URL(out.redirect_uri);
    if (u.protocol !== "http:" && u.protocol !== "https:") return "redirect_uri must be an http(s) URL";
  } catch {
    return "redirect_uri must be an absolute URL";
  }
  return out;
};

const backTo = (redirectUri: string, params: Record<string, string>): string => {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  return u.toString();
};

export class LinkedinAuth {
  private readonly codes = new Map<string, Authorization>();
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly refreshTokens = new Map<string, IssuedToken>();

  constructor(
    private readonly world: SimWorld,
    private readonly prefix: string,
  ) {}

  /** The member an access token was issued to, while it is valid. */
  tokenInfo(token: string | undefined): IssuedToken | undefined {
    const issued = token ? this.tokens.get(token) : undefined;
    return issued && issued.expiresAtMs > this.world.now() ? issued : undefined;
  }

  handle({ req, res, url, path, body }: SimRequest): void {
    if (path === "/oauth/v2/authorization" && req.method === "GET") return this.authorizationPage(res, url.searchParams);
    if (path === "/oauth/v2/authorization" && req.method === "POST") return this.decide(res, new URLSearchParams(body));
    if (path === "/oauth/v2/accessToken" && req.method === "POST") return this.token(res, new URLSearchParams(body));
    return sendJson(res, 404, { error: "not_found", error_description: "No such LinkedIn page" });
  }

  private authorizationPage(res: ServerResponse, query: URLSearchParams): void {
    const params = authParamsOf(query);
    if (typeof params === "string") return badRequest(res, params);
    const hidden = AUTH_PARAMS.map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(params[k])}">`).join("");
    const members = SIM_LINKEDIN_MEMBERS.map(
      (m, i) => `<label><input type="radio" name="member" value="${escapeHtml(m.id)}"${i === 0 ? " checked" : ""}> ${escapeHtml(m.name)}</label>`,
    ).join("");
    const body =
      `<h1>Sign in to LinkedIn (simulated)</h1><p>An application asks to manage the LinkedIn Pages you administer (${escapeHtml(params.scope)}).</p>` +
      `<form method="post" action="${escapeHtml(`${this.prefix}/oauth/v2/authorization`)}">${hidden}<fieldset><legend>Sign in as</legend>${members}</fieldset>` +
      `<button type="submit" name="action" value="allow">Allow</button><button type="submit" name="action" value="cancel">Cancel</button></form>` +
      `<p class="note">This page is a local simulator of LinkedIn; no real account is involved.</p>`;
    sendText(res, 200, page("Sign in to LinkedIn (simulated)", body), "text/html; charset=utf-8");
  }

  private decide(res: ServerResponse, form: URLSearchParams): void {
    const params = authParamsOf(form);
    if (typeof params === "string") return badRequest(res, params);
    const action = form.get("action");
    if (action === "cancel")
      return redirect(res, backTo(params.redirect_uri, { error: "user_cancelled_authorize", error_description: "The user cancelled the authorization", state: params.state }));
    if (action !== "allow") return badRequest(res, "action must be allow or cancel");
    const member = SIM_LINKEDIN_MEMBERS.find((m) => m.id === form.get("member"));
    if (!member) return badRequest(res, `member must be one of ${SIM_LINKEDIN_MEMBERS.map((m) => m.id).join(", ")}`);
    const code = randomBytes(24).toString("base64url");
    this.codes.set(code, { member, redirectUri: params.redirect_uri, scope: params.scope, expiresAtMs: this.world.now() + CODE_TTL_MS, used: false });
    redirect(res, backTo(params.redirect_uri, { code, state: params.state }));
  }

  private token(res: ServerResponse, form: URLSearchParams): void {
    if (form.get("client_id") !== SIM_CREDENTIALS.linkedinClientId || form.get("client_secret") !== SIM_CREDENTIALS.linkedinClientSecret)
      return sendJson(res, 401, { error: "invalid_client", error_description: "Client authentication failed" });
    const grant = form.get("grant_type");
    if (grant === "refresh_token") {
      const issued = this.refreshTokens.get(form.get("refresh_token") ?? "");
      if (!issued || issued.expiresAtMs <= this.world.now()) return sendJson(res, 400, { error: "invalid_grant", error_description: "The provided refresh token is invalid or expired" });
      return this.issue(res, issued.member, issued.scope, issued);
    }
    if (grant !== "authorization_code") return sendJson(res, 400, { error: "unsupported_grant_type", error_description: "grant_type must be authorization_code or refresh_token" });
    const code = form.get("code") ?? "";
    const authorization = this.codes.get(code);
    if (!authorization || authorization.used || authorization.expiresAtMs <= this.world.now())
      return sendJson(res, 400, { error: "invalid_grant", error_description: "The provided authorization grant is invalid, expired or revoked" });
    if (form.get("redirect_uri") !== authorization.redirectUri) return sendJson(res, 400, { error: "invalid_grant", error_description: "redirect_uri does not match the authorization request" });
    authorization.used = true;
    this.issue(res, authorization.member, authorization.scope);
  }

  private issue(res: ServerResponse, member: SimLinkedinMember, scope: string, refresh?: IssuedToken): void {
    const now = this.world.now();
    const accessToken = `AQV${randomBytes(32).toString("base64url")}`;
    this.tokens.set(accessToken, { member, scope, expiresAtMs: now + ACCESS_TTL_S * 1000 });
    let refreshToken = "";
    let refreshLeftS = REFRESH_TTL_S;
    if (refresh) {
      // LinkedIn keeps the refresh token's original expiry when it is used.
      refreshLeftS = Math.floor((refresh.expiresAtMs - now) / 1000);
      refreshToken = [...this.refreshTokens.entries()].find(([, v]) => v === refresh)?.[0] ?? "";
    } else {
      refreshToken = `AQW${randomBytes(32).toString("base64url")}`;
      this.refreshTokens.set(refreshToken, { member, scope, expiresAtMs: now + REFRESH_TTL_S * 1000 });
    }
    sendJson(res, 200, { access_token: accessToken, expires_in: ACCESS_TTL_S, refresh_token: refreshToken, refresh_token_expires_in: refreshLeftS, scope: scope.split(/[\s,]+/).filter(Boolean).join(",") });
  }
}
