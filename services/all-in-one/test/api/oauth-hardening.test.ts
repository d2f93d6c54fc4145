import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLocalJWKSet, jwtVerify } from "jose";
import jwt from "jsonwebtoken";
import { type Harness, startHarness } from "./harness";
import { signInAndDecide, TestOAuthClient } from "./oauth-client";

// The authorization server against what attack scripts and strict clients did: malformed and
// unbounded registrations, refresh tokens presented by the wrong client or after deactivation, forged
// access tokens, and a client that reaches Earshot through 127.0.0.1 instead of localhost.

let h: Harness;
const PASSWORD = "correct horse battery";
const REDIRECT = "http://localhost:53682/cb";
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const register = (body: unknown, raw?: string) =>
  fetch(`${h.url}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: raw ?? JSON.stringify(body) });

const registered = async () => {
  const res = await register({ client_name: "hardening", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
};

const token = (form: Record<string, string>) =>
  fetch(`${h.url}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() });

interface Tokens {
  access_token: string;
  refresh_token: string;
}

/** Registers a client, signs in and approves, exchanges the code: the client id and its first tokens. */
const grant = async (email: string, scope = "mcp projects:read", resource = `${h.url}/mcp`): Promise<{ clientId: string; tokens: Tokens }> => {
  const clientId = await registered();
  const verifier = randomBytes(32).toString("base64url");
  const auth = new URL(`${h.url}/oauth/authorize`);
  auth.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope,
    resource,
  }).toString();
  const back = await signInAndDecide(h, auth, email, PASSWORD);
  const res = await token({ grant_type: "authorization_code", code: back.searchParams.get("code")!, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
  expect(res.status).toBe(200);
  return { clientId, tokens: (await res.json()) as Tokens };
};

const listTools = (accessToken: string, url = h.url) =>
  fetch(`${url}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });

describe("dynamic client registration", () => {
  it("answers malformed JSON with 400 invalid_client_metadata, not 500", async () => {
    for (const raw of ["{bad", "[", "null", '{"redirect_uris": ']) {
      const res = await register(undefined, raw);
      expect({ raw, status: res.status }).toEqual({ raw, status: 400 });
      expect(await res.json()).toMatchObject({ error: "invalid_client_metadata" });
    }
  });

  it.each([
    ["a non-loopback http URI", ["http://client.example/cb"]],
    ["a loopback look-alike", ["http://localhost.evil.example/cb"]],
    ["a fragment", ["https://client.example/cb#frag"]],
    ["user information", ["https://user:pw@client.example/cb"]],
    ["a relative URI", ["/cb"]],
    ["a file: URI", ["file:///etc/passwd"]],
    ["no URIs", []],
    ["eleven URIs", Array.from({ length: 11 }, (_, i) => `https://client.example/cb${i}`)],
    ["a URI over 2,000 bytes", [`https://client.example/${"a".repeat(2000)}`]],
  ])("refuses redirect URIs with %s as invalid_redirect_uri", async (_what, uris) => {
    const res = await register({ client_name: "x", redirect_uris: uris, token_endpoint_auth_method: "none" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_redirect_uri" });
  });

  it("refuses a missing redirect_uris member", async () => {
    const res = await register({ client_name: "x", token_endpoint_auth_method: "none" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_redirect_uri" });
  });

  it("refuses a client_name over 200 characters, long strings and long lists as invalid_client_metadata", async () => {
    for (const extra of [{ client_name: "n".repeat(201) }, { scope: "s".repeat(2001) }, { contacts: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`) }, { logo_uri: "javascript:alert(1)" }]) {
      const res = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", ...extra });
      expect({ extra: Object.keys(extra)[0], status: res.status }).toEqual({ extra: Object.keys(extra)[0], status: 400 });
      expect(await res.json()).toMatchObject({ error: "invalid_client_metadata" });
    }
  });

  it("refuses a 100 KB registration with 413 before reading it", async () => {
    const res = await register({ client_name: "n".repeat(100_000), redirect_uris: [REDIRECT] });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "invalid_client_metadata" });
  });

  it("accepts https, loopback http and a native app's private-use scheme", async () => {
    const res = await register({
      client_name: "Native",
      redirect_uris: ["https://client.example/cb", "http://127.0.0.1:43111/cb", "http://[::1]:43111/cb", "http://localhost/cb", "cursor://anysphere.cursor-retrieval/oauth/callback"],
      token_endpoint_auth_method: "none",
    });
    expect(res.status).toBe(201);
  });
});

describe("refresh tokens", () => {
  it("refuses a refresh after the account is deactivated", async () => {
    const person = await h.newActor();
    const { clientId, tokens } = await grant(person.email);
    await h.as(person, () => h.account.deactivateUser({ confirmation: "DELETE" }));
    const res = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a refresh token presented by another client without consuming it or ending its grant", async () => {
    const person = await h.newActor();
    const { clientId, tokens } = await grant(person.email);
    const intruder = await registered();
    const stolen = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: intruder });
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toMatchObject({ error: "invalid_grant" });
    // The owner's token still works, right away (no reuse window, no revocation), and so does its access token.
    expect((await listTools(tokens.access_token)).status).toBe(200);
    const own = await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    expect(own.status).toBe(200);
    expect((await listTools(((await own.json()) as Tokens).access_token)).status).toBe(200);
  });
});

describe("access tokens", () => {
  const keysFile = () => join(h.running.dataDir, "oauth-signing-keys.json");
  const signingKey = async () => ((JSON.parse(await readFile(keysFile(), "utf8")) as { keys: Array<{ kid: string; privateKeyPem: string }> }).keys[0]!);

  /** Re-signs a real token's claims with Earshot's own key, changed as given: only the checks can refuse it. */
  const forge = async (real: string, change: (claims: Record<string, unknown>) => void, typ = "at+jwt") => {
    const claims = jwt.decode(real) as Record<string, unknown>;
    change(claims);
    const key = await signingKey();
    // jsonwebtoken adds iat unless told not to (and then drops any given one).
    return jwt.sign(claims, key.privateKeyPem, { algorithm: "RS256", keyid: key.kid, noTimestamp: claims.iat === undefined, header: { alg: "RS256", typ } });
  };

  it("are RFC 9068 JWTs that a standard library validates with typ, issuer and audience", async () => {
    const person = await h.newActor();
    const { tokens } = await grant(person.email);
    const jwks = createLocalJWKSet((await (await fetch(`${h.url}/oauth/jwks`)).json()) as Parameters<typeof createLocalJWKSet>[0]);
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { typ: "at+jwt", issuer: h.url, audience: `${h.url}/mcp`, requiredClaims: ["exp", "iat", "sub", "client_id", "jti"] });
    expect(protectedHeader).toMatchObject({ typ: "at+jwt", alg: "RS256" });
    expect(payload).toMatchObject({ sub: person.userId, scope: "mcp projects:read" });
  });

  it("refuses a signed token without exp, iat, sub, aud, client_id or jti, or without typ at+jwt", async () => {
    const person = await h.newActor();
    const { tokens } = await grant(person.email);
    expect((await listTools(await forge(tokens.access_token, () => undefined))).status).toBe(200);
    for (const claim of ["exp", "iat", "sub", "aud", "client_id", "jti"]) {
      const forged = await forge(tokens.access_token, (c) => delete c[claim]);
      expect({ claim, status: (await listTools(forged)).status }).toEqual({ claim, status: 401 });
    }
    for (const typ of ["JWT", "jwt"]) expect({ typ, status: (await listTools(await forge(tokens.access_token, () => undefined, typ))).status }).toEqual({ typ, status: 401 });
  });

  it("answers 401, not 404, to a token naming a user that does not exist", async () => {
    const person = await h.newActor();
    const forRest = (await grant(person.email, "projects:read", `${h.url}/api/v1`)).tokens.access_token;
    const forged = await forge(forRest, (c) => (c.sub = "usr_01JZZZZZZZZZZZZZZZZZZZZZZZ"));
    const res = await h.call("list_projects", {}, forged);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthorized");
  });
});

describe("the sign-in and consent forms", () => {
  it("refuse a post from a foreign origin with 403 before reading it", async () => {
    for (const path of ["/oauth/consent", "/oauth/sign-in"]) {
      const res = await fetch(`${h.url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
        body: new URLSearchParams({ request: "x", decision: "approve", csrf: "x" }).toString(),
      });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(await res.text()).toContain("only be sent from Earshot");
    }
  });
});

describe("reached through 127.0.0.1", () => {
  it("lets the SDK client discover, authorize and call tools when it connects to 127.0.0.1 instead of localhost", async () => {
    const person = await h.newActor();
    const url = h.url.replace("localhost", "127.0.0.1");
    expect(url).not.toBe(h.url);
    const provider = new TestOAuthClient();
    const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: "loopback", version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.origin).toBe(url);
    const back = await signInAndDecide(h, provider.authorizationUrl!, person.email, PASSWORD);
    expect(back.searchParams.get("iss")).toBe(url);
    await first.finishAuth(back.searchParams.get("code")!);
    const client = new Client({ name: "loopback", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("list_projects");
    await client.close();
    const claims = jwt.decode(provider.tokens()!.access_token) as { iss: string; aud: string };
    expect(claims).toMatchObject({ iss: url, aud: `${url}/mcp` });
    // A token for 127.0.0.1's MCP resource is not one for localhost's.
    expect((await listTools(provider.tokens()!.access_token, h.url)).status).toBe(401);
  });
});
