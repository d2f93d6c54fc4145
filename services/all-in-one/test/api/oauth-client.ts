import { createHash, randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Harness } from "./harness";

// A headless OAuth client for tests: the SDK does discovery, registration, PKCE and the token exchange;
// the "browser" part (sign in, approve) is done with plain HTTP requests against the real pages.

export class TestOAuthClient implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";

  constructor(
    readonly redirectUrl = "http://localhost:53682/callback",
    private readonly scope = "mcp projects:read projects:write",
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Earshot test agent",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: this.scope,
    };
  }

  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const cookieJar = () => {
  const jar = new Map<string, string>();
  return {
    header: () => [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
    take: (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";");
        const [k, ...v] = (pair ?? "").split("=");
        if (k) jar.set(k.trim(), v.join("="));
      }
    },
  };
};

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";

/**
 * What a person does in the browser: open the authorization URL, sign in, approve (or deny).
 * Returns the final redirect to the client's redirect URI.
 */
export const signInAndDecide = async (h: Harness, authorizationUrl: URL, email: string, password: string, decision: "approve" | "deny" = "approve"): Promise<URL> => {
  const jar = cookieJar();
  const get = async (url: string) => {
    const res = await fetch(url, { redirect: "manual", headers: { Cookie: jar.header() } });
    jar.take(res);
    return res;
  };
  const post = async (path: string, form: Record<string, string>) => {
    const res = await fetch(`${h.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.header() },
      body: new URLSearchParams(form).toString(),
    });
    jar.take(res);
    return res;
  };
  const authorize = await get(authorizationUrl.href);
  if (authorize.status !== 302) throw new Error(`authorize answered ${authorize.status}: ${await authorize.text()}`);
  const consentUrl = new URL(authorize.headers.get("location") as string, h.url).href;
  const signInPage = await (await get(consentUrl)).text();
  const request = field(signInPage, "request");
  const signedIn = await post("/oauth/sign-in", { csrf: field(signInPage, "csrf"), request, email, password });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const consentPage = await (await get(consentUrl)).text();
  const decided = await post("/oauth/consent", { csrf: field(consentPage, "csrf"), request, decision });
  if (decided.status !== 303) throw new Error(`consent answered ${decided.status}: ${await decided.text()}`);
  return new URL(decided.headers.get("location") as string);
};

/** A fresh authorization request of a public client registered for it: the consent page's path it redirects to. */
export const authorizationRequest = async (h: Harness, clientName = "sign-in-test"): Promise<string> => {
  const registered = await fetch(`${h.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: clientName, redirect_uris: ["http://localhost:53682/cb"], token_endpoint_auth_method: "none" }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const authorize = new URL(`${h.url}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: "http://localhost:53682/cb",
    code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
    code_challenge_method: "S256",
    scope: "mcp",
    resource: `${h.url}/mcp`,
  }).toString();
  const redirected = await fetch(authorize, { redirect: "manual" });
  return redirected.headers.get("location") as string;
};

/**
 * Opens the OAuth sign-in page for a fresh authorization request and returns what its form posts: email
 * and password, from a client address (loopback proxies are trusted, so X-Forwarded-For says it). For
 * tests of the sign-in page's throttles and refusals.
 */
export const openOAuthSignIn = async (h: Harness, clientName = "sign-in-test") => {
  const page = await fetch(new URL(await authorizationRequest(h, clientName), h.url), { redirect: "manual" });
  const html = await page.text();
  const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return (email: string, password: string, from: string) =>
    fetch(`${h.url}/oauth/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, "X-Forwarded-For": from },
      body: new URLSearchParams({ csrf: field(html, "csrf"), request: field(html, "request"), email, password }).toString(),
    });
};
