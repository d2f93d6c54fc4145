import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Actor, Harness } from "./harness";
import { startHarness } from "./harness";
import { buildWorld, createProject, keywordWithMentions, type World } from "./world";

// MCP resources and prompts through the SDK's own client: every resource is read through the operation
// REST serves it with, so its text is that read's { data, meta } and its access rules are the operation's.

let h: Harness;
let w: World;
let viewId: string;
let mentionId: string;
let stranger: { projectId: string; viewId: string; mentionId: string };

const createView = async (actor: Actor, projectId: string): Promise<string> => {
  const res = await h.call("create_mention_view", { projectId, name: "Open ones", filters: { status: ["open"] } }, actor.key);
  if (res.status !== 201) throw new Error(`create_mention_view failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};

beforeAll(async () => {
  h = await startHarness();
  w = await buildWorld(h);
  const [own, theirs] = await Promise.all([keywordWithMentions(h, w.owner, w.projectId, 2), keywordWithMentions(h, w.stranger, w.strangerProjectId, 1)]);
  mentionId = own.mentions[0]!.id;
  viewId = await createView(w.owner, w.projectId);
  stranger = { projectId: w.strangerProjectId, viewId: await createView(w.stranger, w.strangerProjectId), mentionId: theirs.mentions[0]!.id };
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const connect = async (key: string): Promise<Client> => {
  const client = new Client({ name: "earshot-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
};

const read = async (client: Client, uri: string) => {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  expect(contents[0]).toMatchObject({ uri, mimeType: "application/json" });
  return JSON.parse((contents[0] as { text: string }).text) as { data: unknown; meta: Record<string, unknown> };
};

const refusal = async (promise: Promise<unknown>): Promise<McpError> => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof McpError)) throw new Error(`expected an MCP error, got ${String(err)}`);
  return err;
};

describe("MCP resources", () => {
  it("lists the four URI templates", async () => {
    const client = await connect(w.owner.key);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "earshot://projects/{projectId}",
      "earshot://projects/{projectId}/mentions",
      "earshot://views/{viewId}/mentions",
      "earshot://mentions/{mentionId}",
    ]);
    for (const t of resourceTemplates) expect(t).toMatchObject({ name: expect.any(String), title: expect.any(String), description: expect.any(String), mimeType: "application/json" });
  });

  it("lists the caller's projects, their mentions and their saved views' mentions, never another workspace's", async () => {
    const client = await connect(w.viewer.key);
    const { resources, nextCursor } = await client.listResources();
    expect(nextCursor).toBeUndefined();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual([`earshot://projects/${w.projectId}`, `earshot://projects/${w.projectId}/mentions`, `earshot://views/${viewId}/mentions`]);
    for (const r of resources) expect(r).toMatchObject({ name: expect.any(String), title: expect.any(String), description: expect.any(String), mimeType: "application/json" });
    expect(resources[2]!.title).toContain("Open ones");
  });

  it("pages the listing by project with nextCursor", async () => {
    // 21 projects (a plan holds 10): the member's own and ten of another workspace it was invited to.
    const [member, other] = await Promise.all([h.newActor(), h.newActor()]);
    await Promise.all(Array.from({ length: 10 }, () => createProject(h, member)));
    const theirs = [...(await Promise.all(Array.from({ length: 10 }, () => createProject(h, other)))), w.projectId];
    for (const projectId of theirs) {
      const owner = projectId === w.projectId ? w.owner : other;
      const invited = await h.call("invite_project_member", { projectId, email: member.email, role: "viewer" }, owner.key);
      expect(invited.status).toBe(201);
      await h.project.acceptInvitation({ token: h.inviteToken(member.email)!, userId: member.userId, userEmail: member.email, userName: "Member" });
    }
    const client = await connect(await h.keyFor(member, ["mcp", "projects:read"]));
    const first = await client.listResources();
    expect(first.resources).toHaveLength(20);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.resources).toHaveLength(1);
    expect(second.nextCursor).toBeUndefined();
    expect(new Set([...first.resources, ...second.resources].map((r) => r.uri)).size).toBe(21);
    const bad = await refusal(client.listResources({ cursor: "not-a-cursor" }));
    expect(bad.code).toBe(ErrorCode.InvalidParams);
    expect(bad.message).toMatch(/cursor/);
  });

  it("reads each kind as the viewer and the editor, exactly the REST read's data", async () => {
    for (const actor of [w.viewer, w.editor]) {
      const client = await connect(actor.key);
      const cases: Array<[string, string, Record<string, unknown>]> = [
        [`earshot://projects/${w.projectId}`, "get_project", { projectId: w.projectId }],
        [`earshot://projects/${w.projectId}/mentions`, "list_mentions", { projectId: w.projectId }],
        [`earshot://views/${viewId}/mentions`, "list_mentions", { projectId: w.projectId, viewId }],
        [`earshot://mentions/${mentionId}`, "get_mention", { mentionId }],
      ];
      for (const [uri, op, input] of cases) {
        const [body, rest] = await Promise.all([read(client, uri), h.call(op, input, actor.key)]);
        expect(rest.status).toBe(200);
        expect(body.data).toEqual(rest.body.data);
        expect(body.meta).toEqual({ ...rest.body.meta, requestId: expect.any(String) });
      }
    }
  });

  it("answers Resource not found (-32002, the uri in data) for another workspace's resources, unknown ids and malformed URIs", async () => {
    const client = await connect(w.owner.key);
    const uris = [
      `earshot://projects/${stranger.projectId}`,
      `earshot://projects/${stranger.projectId}/mentions`,
      `earshot://views/${stranger.viewId}/mentions`,
      `earshot://mentions/${stranger.mentionId}`,
      "earshot://mentions/men_01JZZZZZZZZZZZZZZZZZZZZZZZ",
      "earshot://projects/Acme",
      `earshot://views/${viewId}`,
      "https://example.com/",
      "",
    ];
    for (const uri of uris) {
      const err = await refusal(client.readResource({ uri }));
      expect({ uri, code: err.code, data: err.data }).toEqual({ uri, code: -32002, data: { uri } });
    }
  });

  it("names the missing scope, and lists only what the key's scopes can read", async () => {
    const key = await h.keyFor(w.owner, ["mcp", "projects:read"]);
    const client = await connect(key);
    const err = await refusal(client.readResource({ uri: `earshot://projects/${w.projectId}/mentions` }));
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toContain("mentions:read");
    expect(err.data).toMatchObject({ uri: `earshot://projects/${w.projectId}/mentions`, problem: { code: "insufficient_scope", scope: "mentions:read" } });
    expect((await read(client, `earshot://projects/${w.projectId}`)).data).toMatchObject({ id: w.projectId });
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([`earshot://projects/${w.projectId}`]);
    const mentionsOnly = await connect(await h.keyFor(w.owner, ["mcp", "mentions:read"]));
    expect((await mentionsOnly.listResources()).resources).toEqual([]);
  });

  it("answers the JSON-RPC body without an MCP session: a read, and a refusal as the MCP spec writes it", async () => {
    const post = async (body: unknown) => {
      const res = await fetch(`${h.url}/mcp`, {
        method: "POST",
        headers: { Authorization: `Bearer ${w.owner.key}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    const ok = await post({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: `earshot://mentions/${mentionId}` } });
    expect(ok).toMatchObject({ id: 1, result: { contents: [{ uri: `earshot://mentions/${mentionId}`, mimeType: "application/json", text: expect.stringContaining(mentionId) }] } });
    const missing = await post({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "earshot://nothing" } });
    expect(missing).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32002, message: "Resource not found", data: { uri: "earshot://nothing" } } });
    const notString = await post({ jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: 7 } });
    expect(notString).toMatchObject({ id: 3, error: { code: ErrorCode.InvalidParams, message: "params.uri must be a string." } });
    const badArguments = await post({ jsonrpc: "2.0", id: 4, method: "prompts/get", params: { name: "weekly_report", arguments: { projectId: 7 } } });
    expect(badArguments).toMatchObject({ id: 4, error: { code: ErrorCode.InvalidParams, message: "params.arguments.projectId must be a string." } });
  });
});

describe("MCP prompts", () => {
  it("lists both prompts with their arguments", async () => {
    const client = await connect(await h.keyFor(w.owner, ["mcp"]));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => [p.name, p.arguments?.map((a) => [a.name, a.required])])).toEqual([
      ["triage_new_mentions", [["projectId", true], ["viewId", false]]],
      ["weekly_report", [["projectId", true]]],
    ]);
    for (const p of prompts) expect(p).toMatchObject({ title: expect.any(String), description: expect.any(String) });
  });

  it("gets each prompt as a user message naming the tools to call, with only the mcp scope", async () => {
    const client = await connect(await h.keyFor(w.owner, ["mcp"]));
    const textOf = (r: { messages: Array<{ role: string; content: { type: string; text?: string } }> }) => {
      expect(r.messages).toHaveLength(1);
      expect(r.messages[0]).toMatchObject({ role: "user", content: { type: "text" } });
      return r.messages[0]!.content.text ?? "";
    };
    const triage = textOf(await client.getPrompt({ name: "triage_new_mentions", arguments: { projectId: w.projectId, viewId } }));
    for (const name of ["get_project", "list_categories", "update_mention_status", "categorize_mention", w.projectId, viewId]) expect(triage).toContain(name);
    expect(triage).toContain("list_mention_changes");
    const report = textOf(await client.getPrompt({ name: "weekly_report", arguments: { projectId: w.projectId } }));
    for (const name of ["get_project", "get_mention_analytics", "list_mentions", w.projectId]) expect(report).toContain(name);
  });

  it("refuses a missing, malformed or unknown argument and an unknown prompt with InvalidParams naming it", async () => {
    const client = await connect(w.owner.key);
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ["weekly_report", {}, /projectId/],
      ["triage_new_mentions", { viewId }, /projectId/],
      ["triage_new_mentions", { projectId: "Acme" }, /projectId must be a project id/],
      ["triage_new_mentions", { projectId: w.projectId, viewId: "open" }, /viewId must be a saved view id/],
      ["weekly_report", { projectId: w.projectId, week: "last" }, /week/],
      ["daily_report", { projectId: w.projectId }, /daily_report/],
    ];
    for (const [name, args, message] of cases) {
      const err = await refusal(client.getPrompt({ name, arguments: args }));
      expect({ name, code: err.code }).toEqual({ name, code: ErrorCode.InvalidParams });
      expect(err.message).toMatch(message);
    }
  });
});
