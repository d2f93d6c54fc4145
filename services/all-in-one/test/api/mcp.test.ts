import { isTool, OPERATIONS, operationInputSchema, takesIdempotencyKey } from "@earshot/edge";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { strictAjv } from "./contract";
import { type Actor, type Harness, startHarness } from "./harness";
import { createProject } from "./world";

// The MCP endpoint through the SDK's own client over Streamable HTTP, with API keys holding the mcp scope.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const connect = async (key: string) => {
  const client = new Client({ name: "earshot-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  return client;
};

const textOf = (result: { content?: unknown }) => JSON.parse(((result.content as Array<{ text: string }>)[0] as { text: string }).text) as Record<string, unknown>;

describe("MCP tools", () => {
  let owner: Actor;
  beforeAll(async () => {
    owner = await h.newActor();
  });

  it("lists every catalog operation as a tool with the OpenAPI input schema, an output schema and truthful hints", async () => {
    const client = await connect(owner.key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(OPERATIONS.filter(isTool).map((o) => o.name).sort());
    for (const op of OPERATIONS.filter(isTool)) {
      const tool = tools.find((t) => t.name === op.name)!;
      const { idempotencyKey, ...properties } = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
      const expected = operationInputSchema(op) as { properties?: Record<string, unknown>; required?: string[] };
      expect(properties).toEqual(expected.properties ?? {});
      expect(tool.inputSchema.required ?? []).toEqual([...new Set([...(expected.required ?? []), ...(op.mcpRequired ?? [])])]);
      expect(idempotencyKey !== undefined).toBe(takesIdempotencyKey(op));
      expect(tool.outputSchema).toMatchObject({ type: "object", required: ["data", "meta"] });
      // preview_keyword reads although it is a POST (its input, a keyword definition, is a body).
      expect(tool.annotations).toMatchObject({ readOnlyHint: op.method === "GET" || op.name === "preview_keyword" });
      if (/^(archive|delete|remove|revoke|update_project$)/.test(op.name)) expect(tool.annotations?.destructiveHint).toBe(true);
    }
    await client.close();
  });

  it("returns the same { data, meta } as REST in structuredContent and as text", async () => {
    const client = await connect(owner.key);
    const created = await client.callTool({ name: "create_project", arguments: { name: "Via MCP", digestTimezone: "Asia/Tokyo" } });
    expect(created.isError).toBeFalsy();
    const project = (created.structuredContent as { data: { id: string } }).data;
    expect(textOf(created)).toEqual(created.structuredContent);
    const got = await client.callTool({ name: "get_project", arguments: { projectId: project.id } });
    const rest = await h.call("get_project", { projectId: project.id }, owner.key);
    expect((got.structuredContent as { data: unknown }).data).toEqual(rest.body.data);
    expect((got.structuredContent as { meta: unknown }).meta).toMatchObject({ apiVersion: "2026-08-24" });
    await client.close();
  });

  it("creates and lists keywords as tools, answering { data, meta } that each tool's outputSchema accepts", async () => {
    const client = await connect(owner.key);
    // Listing the tools gives the client their output schemas, which it then applies to every callTool.
    const { tools } = await client.listTools();
    const projectId = await createProject(h, owner);
    const created = await client.callTool({
      name: "create_keyword",
      arguments: { projectId, value: "Acme", sources: ["x"], aliases: ["ACME Inc"], excludedTerms: [], filters: { minFollowers: 50 }, caseSensitive: false, idempotencyKey: "mcp-keyword-0001" },
    });
    expect(created.isError).toBeFalsy();
    const keyword = (created.structuredContent as { data: Record<string, unknown> }).data;
    expect(keyword).toMatchObject({ projectId, value: "Acme", sources: ["x"], aliases: ["ACME Inc"], filters: { minFollowers: 50 }, active: true, deactivatedAt: null });
    expect(textOf(created)).toEqual(created.structuredContent);

    // A JSON boolean for the query's active, as agents send it.
    const listed = await client.callTool({ name: "list_keywords", arguments: { projectId, active: true, limit: 5 } });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({ data: [keyword], meta: { apiVersion: "2026-08-24", nextCursor: null, limit: 5 } });
    const rest = await h.call("list_keywords", { projectId, active: true, limit: 5 }, owner.key);
    expect(rest.body.data).toEqual((listed.structuredContent as { data: unknown }).data);

    for (const [name, result] of [["create_keyword", created], ["list_keywords", listed]] as const) {
      const validate = strictAjv().compile(tools.find((t) => t.name === name)!.outputSchema!);
      expect({ name, valid: validate(result.structuredContent), errors: validate.errors ?? null }).toEqual({ name, valid: true, errors: null });
    }
    const listSchema = strictAjv().compile(tools.find((t) => t.name === "list_keywords")!.outputSchema!);
    expect(listSchema({ ...(listed.structuredContent as object), data: [{ ...keyword, active: "yes" }] })).toBe(false);

    const bad = await client.callTool({
      name: "create_keyword",
      arguments: { projectId, value: "Acme 2", sources: ["x"], aliases: [], excludedTerms: [], filters: { colour: "red" }, caseSensitive: false },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatchObject({ status: 400, code: "validation_failed", errors: [expect.objectContaining({ path: "filters.colour" })] });
    await client.close();
  });

  it("reports a project's source health as a tool, the same as REST and as its output schema says", async () => {
    const client = await connect(owner.key);
    const { tools } = await client.listTools();
    const projectId = await createProject(h, owner);
    const got = await client.callTool({ name: "get_source_health", arguments: { projectId } });
    expect(got.isError).toBeFalsy();
    const data = (got.structuredContent as { data: { projectId: string; sources: Array<{ source: string }> } }).data;
    expect(data.projectId).toBe(projectId);
    expect(data.sources.map((s) => s.source)).toEqual(["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"]);
    const rest = await h.call("get_source_health", { projectId }, owner.key);
    expect(rest.body.data).toEqual(data);
    const validate = strictAjv().compile(tools.find((t) => t.name === "get_source_health")!.outputSchema!);
    expect({ valid: validate(got.structuredContent), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    await client.close();
  });

  it("answers a failing operation with an isError result carrying the REST problem details", async () => {
    const client = await connect(owner.key);
    const bad = await client.callTool({ name: "create_project", arguments: { name: "", color: "red" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatchObject({ status: 400, code: "validation_failed", errors: expect.arrayContaining([expect.objectContaining({ path: "color" })]) });
    const missing = await client.callTool({ name: "get_project", arguments: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ" } });
    expect(textOf(missing)).toMatchObject({ status: 404, code: "not_found" });
    await client.close();
  });

  it("replays a write called twice with one idempotencyKey, across MCP and REST", async () => {
    const client = await connect(owner.key);
    const first = await client.callTool({ name: "create_project", arguments: { name: "Once", idempotencyKey: "mcp-once-0001" } });
    const second = await client.callTool({ name: "create_project", arguments: { name: "Once", idempotencyKey: "mcp-once-0001" } });
    expect(second.structuredContent).toEqual(first.structuredContent);
    const rest = await h.call("create_project", { name: "Once" }, owner.key, { idempotencyKey: "mcp-once-0001" });
    expect(rest.body).toEqual(first.structuredContent);
    expect(rest.headers.get("idempotent-replayed")).toBe("true");
    await client.close();
  });

  it("lists only the tools the key's scopes allow, and still checks each call's scope", async () => {
    const key = await h.keyFor(owner, ["mcp", "projects:read"]);
    const client = await connect(key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(OPERATIONS.filter((o) => o.scope === "projects:read").map((o) => o.name).sort());
    const refused = await client.callTool({ name: "create_project", arguments: { name: "No" } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatchObject({ status: 403, code: "insufficient_scope", scope: "projects:write" });
    await client.close();
  });

  it("refuses a key without the mcp scope with 403 and one without credentials with 401 naming the resource metadata", async () => {
    const noMcp = await h.keyFor(owner, ALL_SCOPES.filter((s) => s !== "mcp"));
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const forbidden = await fetch(`${h.url}/mcp`, { method: "POST", headers: { ...headers, Authorization: `Bearer ${noMcp}` }, body });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="mcp"');
    const anonymous = await fetch(`${h.url}/mcp`, { method: "POST", headers, body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(new RegExp(`^Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp", scope="[^"]+"$`));
  });

  it("answers an unknown tool with a JSON-RPC error, not a tool result", async () => {
    const client = await connect(owner.key);
    await expect(client.callTool({ name: "launch_rockets", arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });
});

// REST checks the scope before it looks at the input; MCP must too, or a key could learn a tool's
// argument rules (and a caller would see validation_failed where REST answers 403).
describe("MCP checks a tool's scope before its arguments", () => {
  const tools = OPERATIONS.filter(isTool);
  /** Every input the tool declares given a value no schema accepts, an unknown field and a non-string idempotencyKey. */
  const wrongTypedArguments = (op: (typeof tools)[number]) => {
    const properties = Object.keys((operationInputSchema(op) as { properties?: Record<string, unknown> }).properties ?? {});
    return { ...Object.fromEntries(properties.map((p) => [p, [[1]]])), notAField: true, ...(op.method !== "GET" ? { idempotencyKey: 42 } : {}) };
  };
  /** Nothing the tool requires, an unknown field and a non-string idempotencyKey. */
  const missingArguments = { notAField: true, idempotencyKey: 42 };
  /** A problem without what differs between two answers to the same refusal. */
  const comparable = (problem: Record<string, unknown>) => {
    const { requestId: _requestId, instance: _instance, ...rest } = problem;
    return rest;
  };

  let owner: Actor;
  beforeAll(async () => {
    owner = await h.newActor();
  });

  it("refuses every tool the key lacks the scope of with insufficient_scope, REST's problem body, whatever the arguments", async () => {
    const seen: Array<{ tool: string; codes: unknown[] }> = [];
    for (const scope of [...new Set(tools.map((op) => op.scope))]) {
      const key = await h.keyFor(owner, ALL_SCOPES.filter((s) => s !== scope));
      const client = await connect(key);
      for (const op of tools.filter((o) => o.scope === scope)) {
        const args = wrongTypedArguments(op);
        const overMcp = await Promise.all([args, missingArguments].map((a) => client.callTool({ name: op.name, arguments: a })));
        const rest = await h.call(op.name, args, key);
        expect(rest.status).toBe(403);
        for (const result of overMcp) {
          expect(result.isError).toBe(true);
          expect({ tool: op.name, problem: comparable(textOf(result)) }).toEqual({ tool: op.name, problem: comparable(rest.body as Record<string, unknown>) });
        }
        seen.push({ tool: op.name, codes: overMcp.map((r) => textOf(r).code) });
      }
      await client.close();
    }
    expect(seen.map((s) => s.tool).sort()).toEqual(tools.map((op) => op.name).sort());
    expect(seen.filter((s) => s.codes.some((code) => code !== "insufficient_scope"))).toEqual([]);
  }, 60_000);

  it("still refuses the same arguments as validation_failed for a key holding the scope", async () => {
    const client = await connect(owner.key);
    for (const op of tools) {
      for (const args of [wrongTypedArguments(op), missingArguments]) {
        const result = await client.callTool({ name: op.name, arguments: args });
        expect({ tool: op.name, code: textOf(result).code }).toEqual({ tool: op.name, code: "validation_failed" });
      }
    }
    const removal = textOf(await client.callTool({ name: "remove_project_member", arguments: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", memberId: "mbr_01JZZZZZZZZZZZZZZZZZZZZZZZ" } }));
    expect(removal).toMatchObject({ status: 400, code: "validation_failed", errors: [{ path: "memberType", message: "is required" }] });
    await client.close();
  }, 60_000);
});
