import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { waitFor } from "../../../platform/src/testing/tmp";
import { type Actor, type Harness, startHarness } from "./harness";
import { createKeyword, createProject, ingestPosts, postFor } from "./world";

// MCP sessions and resource subscriptions through the SDK's own client: initialize gives a session, the
// client's GET stream carries notifications/resources/updated when a matching mention is stored, and the
// session's credential and workspace bound what it is told.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const mentionsUri = (projectId: string) => `earshot://projects/${projectId}/mentions`;

/** An SDK client whose resource-updated notifications are queued, to be awaited one by one. */
const connect = async (key: string) => {
  const client = new Client({ name: "earshot-subscriber", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const received: string[] = [];
  const waiting: Array<(uri: string) => void> = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    const next = waiting.shift();
    if (next) next(n.params.uri);
    else received.push(n.params.uri);
  });
  await client.connect(transport);
  const nextUpdate = (): Promise<string> => {
    const queued = received.shift();
    return queued !== undefined ? Promise.resolve(queued) : new Promise((resolve) => waiting.push(resolve));
  };
  return { client, transport, nextUpdate, received };
};

/** A project with a keyword; posts containing `term` become its mentions. */
const projectWithKeyword = async (actor: Actor) => {
  const projectId = await createProject(h, actor);
  const keyword = await createKeyword(h, actor, projectId, { sources: ["x", "reddit"] });
  return { projectId, term: keyword.value };
};

const post = (projectId: string, term: string, source: "x" | "reddit" = "x") => postFor(projectId, { text: `${term} launched something`, source });

/** The id of the newest mention of a project, read through the tools. */
const newestMentionId = async (client: Client, projectId: string): Promise<string> => {
  const listed = await client.callTool({ name: "list_mentions", arguments: { projectId, limit: 1 } });
  return ((listed.structuredContent as { data: Array<{ id: string }> }).data[0] as { id: string }).id;
};

const rawPost = (key: string, body: unknown, sessionId?: string) =>
  fetch(`${h.url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(sessionId ? { "Mcp-Session-Id": sessionId } : {}),
    },
    body: JSON.stringify(body),
  });

const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

/** Opens the GET stream and hands over its SSE events (id and data) as they come. */
const openStream = async (key: string, sessionId: string, lastEventId?: string) => {
  const abort = new AbortController();
  const res = await fetch(`${h.url}/mcp`, {
    headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream", "Mcp-Session-Id": sessionId, ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}) },
    signal: abort.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  /** The next event with data, or undefined when the stream ended. */
  const next = async (): Promise<{ id: string; data: { params: { uri: string } } } | undefined> => {
    for (;;) {
      const end = text.indexOf("\n\n");
      if (end >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const id = /^id: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id && data) return { id, data: JSON.parse(data) as { params: { uri: string } } };
        continue;
      }
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return undefined;
      text += chunk.value;
    }
  };
  return { res, next, close: () => abort.abort() };
};

describe("MCP resource subscriptions", () => {
  let owner: Actor;
  let stranger: Actor;
  beforeAll(async () => {
    [owner, stranger] = await Promise.all([h.newActor(), h.newActor()]);
  });

  it("tells a subscribed client of a new mention, which it then reads; a client of another workspace is told nothing", async () => {
    const [mine, theirs] = await Promise.all([projectWithKeyword(owner), projectWithKeyword(stranger)]);
    const agent = await connect(owner.key);
    const other = await connect(stranger.key);
    expect(agent.transport.sessionId).toEqual(expect.any(String));
    await agent.client.subscribeResource({ uri: mentionsUri(mine.projectId) });
    await other.client.subscribeResource({ uri: mentionsUri(theirs.projectId) });

    const imported = post(mine.projectId, mine.term);
    await ingestPosts(h, [imported]);
    expect(await agent.nextUpdate()).toBe(mentionsUri(mine.projectId));
    // Told, the agent reads the resource again and finds the new mention.
    const read = await agent.client.readResource({ uri: mentionsUri(mine.projectId) });
    const { data } = JSON.parse((read.contents[0] as { text: string }).text) as { data: Array<{ id: string; sourceId: string }> };
    expect(data.map((m) => m.sourceId)).toContain(imported.sourceId);
    expect(await newestMentionId(agent.client, mine.projectId)).toMatch(/^men_/);

    // The stranger's own project then gets a mention: the first notification it receives is about that one.
    await ingestPosts(h, [post(theirs.projectId, theirs.term)]);
    expect(await other.nextUpdate()).toBe(mentionsUri(theirs.projectId));
    expect(other.received).toEqual([]);
    await Promise.all([agent.client.close(), other.client.close()]);
  }, 30_000);

  it("stops after unsubscribing: the next notification is for the subscription that is left", async () => {
    const [first, second] = await Promise.all([projectWithKeyword(owner), projectWithKeyword(owner)]);
    const agent = await connect(owner.key);
    await agent.client.subscribeResource({ uri: mentionsUri(first.projectId) });
    await agent.client.subscribeResource({ uri: mentionsUri(second.projectId) });
    await agent.client.unsubscribeResource({ uri: mentionsUri(first.projectId) });
    await ingestPosts(h, [post(first.projectId, first.term)]);
    await ingestPosts(h, [post(second.projectId, second.term)]);
    expect(await agent.nextUpdate()).toBe(mentionsUri(second.projectId));
    expect(agent.received).toEqual([]);
    await agent.client.close();
  }, 30_000);

  it("tells a saved view's subscriber only of mentions the view shows", async () => {
    const { projectId, term } = await projectWithKeyword(owner);
    const view = await h.call("create_mention_view", { projectId, name: "Reddit only", filters: { source: ["reddit"] } }, owner.key);
    expect(view.status).toBe(201);
    const viewUri = `earshot://views/${(view.body.data as { id: string }).id}/mentions`;
    const agent = await connect(owner.key);
    await agent.client.subscribeResource({ uri: viewUri });
    await agent.client.subscribeResource({ uri: mentionsUri(projectId) });
    // An X post: the project's list changes, the view's does not. The view, subscribed first, is judged
    // first: had it matched, its notification would have come before the project's.
    await ingestPosts(h, [post(projectId, term, "x")]);
    expect(await agent.nextUpdate()).toBe(mentionsUri(projectId));
    await agent.client.unsubscribeResource({ uri: mentionsUri(projectId) });
    await ingestPosts(h, [post(projectId, term, "reddit")]);
    expect(await agent.nextUpdate()).toBe(viewUri);
    expect(agent.received).toEqual([]);
    await agent.client.close();
  }, 30_000);

  it("refuses what cannot be subscribed: no session, another workspace's project, other resources, a key without mentions:read", async () => {
    const mine = await createProject(h, owner);
    const theirs = await createProject(h, stranger);
    const agent = await connect(owner.key);
    await expect(agent.client.subscribeResource({ uri: mentionsUri(theirs) })).rejects.toMatchObject({ code: -32002 });
    await expect(agent.client.subscribeResource({ uri: `earshot://projects/${mine}` })).rejects.toMatchObject({ code: -32602 });
    await expect(agent.client.subscribeResource({ uri: "https://example.com/x" })).rejects.toMatchObject({ code: -32602 });
    await agent.client.close();

    const narrow = await h.keyFor(owner, ["mcp", "projects:read"]);
    const limited = await connect(narrow);
    await expect(limited.client.subscribeResource({ uri: mentionsUri(mine) })).rejects.toMatchObject({ code: -32600, message: expect.stringContaining("mentions:read") });
    await limited.client.close();

    // A stateless client (no initialize) has no session to subscribe with.
    const res = await rawPost(owner.key, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: mentionsUri(mine) } });
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(await res.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining("initialize") } });
  }, 30_000);
});

describe("MCP sessions on the wire", () => {
  let owner: Actor;
  beforeAll(async () => {
    owner = await h.newActor();
  });

  it("keeps the stateless tools/call as it was: no session, no header", async () => {
    const res = await rawPost(owner.key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_projects", arguments: {} } });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(await res.json()).toMatchObject({ result: { structuredContent: { data: expect.any(Array) } } });
    const get = await fetch(`${h.url}/mcp`, { headers: { Authorization: `Bearer ${owner.key}`, Accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  it("answers 404 for an unknown session, another credential's session and an ended one", async () => {
    const unknown = await rawPost(owner.key, { jsonrpc: "2.0", id: 1, method: "tools/list" }, "no-such-session");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: -32001, message: "Session not found" } });

    const init = await rawPost(owner.key, initialize);
    const sessionId = init.headers.get("mcp-session-id")!;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const otherKey = await h.keyFor(owner, ["mcp", "projects:read"]);
    expect((await rawPost(otherKey, { jsonrpc: "2.0", id: 2, method: "tools/list" }, sessionId)).status).toBe(404);
    expect((await rawPost(owner.key, { jsonrpc: "2.0", id: 2, method: "tools/list" }, sessionId)).status).toBe(200);

    const ended = await fetch(`${h.url}/mcp`, { method: "DELETE", headers: { Authorization: `Bearer ${owner.key}`, "Mcp-Session-Id": sessionId } });
    expect(ended.status).toBe(200);
    expect((await rawPost(owner.key, { jsonrpc: "2.0", id: 3, method: "tools/list" }, sessionId)).status).toBe(404);
  });

  it("ends the SDK client's session on terminateSession", async () => {
    const agent = await connect(owner.key);
    const sessionId = agent.transport.sessionId!;
    await agent.transport.terminateSession();
    expect((await rawPost(owner.key, { jsonrpc: "2.0", id: 1, method: "tools/list" }, sessionId)).status).toBe(404);
    await agent.client.close();
  });

  it("resumes a broken stream from Last-Event-ID with what it missed; a second stream at once is 409", async () => {
    const { projectId, term } = await projectWithKeyword(owner);
    const init = await rawPost(owner.key, initialize);
    const sessionId = init.headers.get("mcp-session-id")!;
    const subscribed = await rawPost(owner.key, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: mentionsUri(projectId) } }, sessionId);
    expect(await subscribed.json()).toMatchObject({ result: {} });

    const stream = await openStream(owner.key, sessionId);
    expect(stream.res.headers.get("content-type")).toBe("text/event-stream");
    expect((await fetch(`${h.url}/mcp`, { headers: { Authorization: `Bearer ${owner.key}`, Accept: "text/event-stream", "Mcp-Session-Id": sessionId } })).status).toBe(409);
    await ingestPosts(h, [post(projectId, term)]);
    const first = (await stream.next())!;
    expect(first.data).toMatchObject({ method: "notifications/resources/updated", params: { uri: mentionsUri(projectId) } });
    stream.close();

    // While the stream is down, another mention: the replica keeps the notification for the session.
    const streams = h.running.gateway.mcpSessions!.streams;
    await ingestPosts(h, [post(projectId, term)]);
    await waitFor(() => streams.bufferedCount(sessionId) >= 2, 10_000);
    const resumed = await openStream(owner.key, sessionId, first.id);
    const missed = (await resumed.next())!;
    expect(missed.id).not.toBe(first.id);
    expect(missed.data.params.uri).toBe(mentionsUri(projectId));
    resumed.close();
  }, 30_000);

  it("closes the stream of a revoked API key", async () => {
    const created = await h.call("create_api_key", { name: "agent", scopes: ["mcp", "mentions:read"] }, owner.key);
    expect(created.status).toBe(201);
    const { id: keyId, key } = created.body.data as { id: string; key: string };
    const init = await rawPost(key, initialize);
    const sessionId = init.headers.get("mcp-session-id")!;
    const stream = await openStream(key, sessionId);
    expect(stream.res.status).toBe(200);
    expect((await h.call("revoke_api_key", { keyId }, owner.key)).status).toBe(200);
    // The stream ends (next() answers undefined) without any event: the revocation is noticed by the replica.
    expect(await stream.next()).toBeUndefined();
  }, 30_000);
});
