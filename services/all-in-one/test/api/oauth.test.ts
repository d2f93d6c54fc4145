import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { createHash, randomBytes } from "node:crypto";
import { ManualClock } from "@earshot/platform";
import { type Harness, startHarness } from "./harness";
import { signInAndDecide, TestOAuthClient } from "./oauth-client";

// OAuth 2.1 for MCP clients against a running all-in-one: the SDK's own client with an
// OAuthClientProvider does discovery, dynamic registration, PKCE and the token exchange.

let h: Harness;
const PASSWORD = "correct horse battery";
// The authorization server's clock, which the test moves (token windows) instead of waiting.
const clock = new ManualClock(new Date());
beforeAll(async () => {
  h = await startHarness({}, clock);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const connectWithOAuth = async (email: string, provider = new TestOAuthClient()) => {
  const url = new URL(`${h.url}/mcp`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  const back = await signInAndDecide(h, provider.authorizationUrl!, email, PASSWORD);
  expect(back.searchParams.get("iss")).toBe(h.url);
  await first.finishAuth(back.searchParams.get("code")!);
  const connected = new Client({ name: "oauth-test", version: "1.0.0" });
  await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return { client: connected, provider };
};

/** A raw authorization-code flow, for checking what the token endpoint refuses. */
const rawFlow = async (email: string, options: { resource?: string; scope?: string } = {}) => {
  const registered = await fetch(`${h.url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "raw", redirect_uris: ["http://localhost:53682/cb"], token_endpoint_auth_method: "none" }),
  });
  expect(registered.status).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const auth = new URL(`${h.url}/oauth/authorize`);
  auth.search = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: "http://localhost:53682/cb",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: options.scope ?? "mcp projects:read",
    resource: options.resource ?? `${h.url}/mcp`,
    state: "s1",
  }).toString();
  const back = await signInAndDecide(h, auth, email, PASSWORD);
  const token = (form: Record<string, string>) =>
    fetch(`${h.url}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() });
  return { client_id, verifier, code: back.searchParams.get("code")!, state: back.searchParams.get("state"), token };
};

const tokensFrom = async (res: Response) => (await res.json()) as { access_token: string; refresh_token: string; error?: string };

describe("OAuth for MCP clients", () => {
  it("lets the SDK client discover, register, sign in with PKCE, list tools and create then read a project", async () => {
    const owner = await h.newActor();
    const { client } = await connectWithOAuth(owner.email);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["create_project", "get_project", "list_projects"]));
    const created = await client.callTool({ name: "create_project", arguments: { name: "Agent-made" } });
    const id = (created.structuredContent as { data: { id: string } }).data.id;
    const got = await client.callTool({ name: "get_project", arguments: { projectId: id } });
    expect((got.structuredContent as { data: { name: string; role: string } }).data).toMatchObject({ name: "Agent-made", role: "owner" });
    await client.close();
  });

  it("publishes authorization server and protected resource metadata", async () => {
    const as = (await (await fetch(`${h.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: h.url,
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
      revocation_endpoint: `${h.url}/oauth/revoke`,
      jwks_uri: `${h.url}/oauth/jwks`,
    });
    const prm = (await (await fetch(`${h.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: `${h.url}/mcp`, authorization_servers: [h.url], bearer_methods_supported: ["header"] });
    const jwks = (await (await fetch(`${h.url}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; kty: string }> };
    expect(jwks.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig" });
  });

  it("refuses a token whose audience is another resource, on MCP and on REST", async () => {
    const owner = await h.newActor();
    const forRest = await rawFlow(owner.email, { resource: `${h.url}/api/v1`, scope: "mcp projects:read" });
    const restTokens = await tokensFrom(await forRest.token({ grant_type: "authorization_code", code: forRest.code, code_verifier: forRest.verifier, client_id: forRest.client_id, redirect_uri: "http://localhost:53682/cb", resource: `${h.url}/api/v1` }));
    expect((await h.call("list_projects", {}, restTokens.access_token)).status).toBe(200);
    const onMcp = await fetch(`${h.url}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${restTokens.access_token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(onMcp.status).toBe(401);
    const forMcp = await rawFlow(owner.email);
    const mcpTokens = await tokensFrom(await forMcp.token({ grant_type: "authorization_code", code: forMcp.code, code_verifier: forMcp.verifier, client_id: forMcp.client_id, redirect_uri: "http://localhost:53682/cb", resource: `${h.url}/mcp` }));
    expect((await h.call("list_projects", {}, mcpTokens.access_token)).status).toBe(401);
  });

  it("answers insufficient_scope to a tool call the token's scopes do not cover", async () => {
    const owner = await h.newActor();
    const f = await rawFlow(owner.email, { scope: "mcp projects:read" });
    const tokens = await tokensFrom(await f.token({ grant_type: "authorization_code", code: f.code, code_verifier: f.verifier, client_id: f.client_id, redirect_uri: "http://localhost:53682/cb" }));
    const client = new Client({ name: "narrow", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } } }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("create_project");
    const refused = await client.callTool({ name: "create_project", arguments: { name: "No" } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ code: "insufficient_scope", scope: "projects:write" });
    await client.close();
  });

  it("rotates refresh tokens, and a reused one revokes the family and its live access token", async () => {
    const owner = await h.newActor();
    const f = await rawFlow(owner.email);
    const first = await tokensFrom(await f.token({ grant_type: "authorization_code", code: f.code, code_verifier: f.verifier, client_id: f.client_id, redirect_uri: "http://localhost:53682/cb" }));
    const second = await tokensFrom(await f.token({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: f.client_id }));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const mcpCall = (token: string) =>
      fetch(`${h.url}/mcp`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    expect((await mcpCall(second.access_token)).status).toBe(200);
    // Past the window in which a second refresh with one token is taken for the client's own concurrent retry.
    clock.advance(2_001);
    const reuse = await f.token({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: f.client_id });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await mcpCall(second.access_token)).status).toBe(401);
    const afterRevocation = await f.token({ grant_type: "refresh_token", refresh_token: second.refresh_token, client_id: f.client_id });
    expect(afterRevocation.status).toBe(400);
  });

  it("lets exactly one of two concurrent refreshes with one token win", async () => {
    const owner = await h.newActor();
    const f = await rawFlow(owner.email);
    const first = await tokensFrom(await f.token({ grant_type: "authorization_code", code: f.code, code_verifier: f.verifier, client_id: f.client_id, redirect_uri: "http://localhost:53682/cb" }));
    const results = await Promise.all([0, 1].map(() => f.token({ grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: f.client_id })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it("answers 200 to the revocation of an unknown token, and revoking a refresh token ends its access token", async () => {
    const owner = await h.newActor();
    const f = await rawFlow(owner.email, { resource: `${h.url}/api/v1`, scope: "projects:read" });
    const tokens = await tokensFrom(await f.token({ grant_type: "authorization_code", code: f.code, code_verifier: f.verifier, client_id: f.client_id, redirect_uri: "http://localhost:53682/cb" }));
    const foreign = await fetch(`${h.url}/oauth/revoke`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: "not-a-token-of-ours", client_id: f.client_id }).toString() });
    expect(foreign.status).toBe(200);
    expect((await h.call("list_projects", {}, tokens.access_token)).status).toBe(200);
    const revoked = await fetch(`${h.url}/oauth/revoke`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: tokens.refresh_token, client_id: f.client_id }).toString() });
    expect(revoked.status).toBe(200);
    expect((await h.call("list_projects", {}, tokens.access_token)).status).toBe(401);
  });

  it("refuses PKCE plain, a missing code_verifier, a wrong redirect_uri and a reused code", async () => {
    const owner = await h.newActor();
    const plain = new URL(`${h.url}/oauth/authorize`);
    const reg = (await (await fetch(`${h.url}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ redirect_uris: ["http://localhost:53682/cb"], token_endpoint_auth_method: "none" }) })).json()) as { client_id: string };
    plain.search = new URLSearchParams({ response_type: "code", client_id: reg.client_id, redirect_uri: "http://localhost:53682/cb", code_challenge: "abc", code_challenge_method: "plain" }).toString();
    const plainRes = await fetch(plain, { redirect: "manual" });
    expect(new URL(plainRes.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");

    const f = await rawFlow(owner.email);
    const noVerifier = await f.token({ grant_type: "authorization_code", code: f.code, client_id: f.client_id, redirect_uri: "http://localhost:53682/cb" });
    expect(noVerifier.status).toBe(400);
    const g = await rawFlow(owner.email);
    const wrongRedirect = await g.token({ grant_type: "authorization_code", code: g.code, code_verifier: g.verifier, client_id: g.client_id, redirect_uri: "http://localhost:9999/elsewhere" });
    expect(wrongRedirect.status).toBe(400);
    const k = await rawFlow(owner.email);
    const ok = await k.token({ grant_type: "authorization_code", code: k.code, code_verifier: k.verifier, client_id: k.client_id, redirect_uri: "http://localhost:53682/cb" });
    expect(ok.status).toBe(200);
    const issued = await tokensFrom(ok);
    const again = await k.token({ grant_type: "authorization_code", code: k.code, code_verifier: k.verifier, client_id: k.client_id, redirect_uri: "http://localhost:53682/cb" });
    expect(again.status).toBe(400);
    // The tokens issued for a code presented twice are revoked too.
    expect((await h.call("list_projects", {}, issued.access_token)).status).toBe(401);
  });

  it("sends the person back with access_denied when they deny", async () => {
    const owner = await h.newActor();
    const provider = new TestOAuthClient();
    const client = new Client({ name: "deny", version: "1" });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    const back = await signInAndDecide(h, provider.authorizationUrl!, owner.email, PASSWORD, "deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.origin + back.pathname).toBe("http://localhost:53682/callback");
  });

  it("refuses an authorization request for an unregistered redirect URI without redirecting", async () => {
    const reg = (await (await fetch(`${h.url}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ redirect_uris: ["http://localhost:53682/cb"], token_endpoint_auth_method: "none" }) })).json()) as { client_id: string };
    const url = new URL(`${h.url}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: reg.client_id, redirect_uri: "https://evil.example/steal", code_challenge: "x".repeat(43), code_challenge_method: "S256" }).toString();
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});
