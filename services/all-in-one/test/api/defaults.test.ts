import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Actor, type Harness, startHarness } from "./harness";
import { createProject } from "./world";

// The creates take their required fields alone: everything else has a default, which OpenAPI and the MCP
// tools publish (the field is optional and carries `default`, or says in words what it defaults to).

let h: Harness;
let owner: Actor;
let client: Client;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newActor();
  client = new Client({ name: "earshot-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.key}` } } }));
}, 60_000);
afterAll(async () => {
  await client?.close();
  await h?.stop();
});

interface ObjectSchema {
  required?: string[];
  properties: Record<string, { default?: unknown; description?: string }>;
}

/** Each create: what it requires, and the default it publishes for each other field (undefined: stated in words). */
const CREATES: Record<string, { required: string[]; defaults: Record<string, unknown> }> = {
  create_project: {
    required: ["name"],
    defaults: { description: "", color: "#7e47eb", icon: "📡", enabledSources: ["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"], digestTimezone: "UTC" },
  },
  create_keyword: {
    required: ["projectId", "value"],
    defaults: { sources: undefined, aliases: [], excludedTerms: [], filters: {}, caseSensitive: false, groupId: undefined },
  },
  create_keyword_group: { required: ["projectId", "name"], defaults: {} },
  create_category: { required: ["projectId", "name"], defaults: { description: "", icon: "", order: undefined } },
  create_mention_view: { required: ["projectId", "name"], defaults: { filters: {}, order: undefined } },
};

const bodySchemaOf = async (opName: string): Promise<ObjectSchema> => {
  const doc = (await (await fetch(`${h.url}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; requestBody?: { content: { "application/json": { schema: ObjectSchema } } } }>>;
  };
  for (const methods of Object.values(doc.paths)) {
    for (const entry of Object.values(methods)) if (entry.operationId === opName) return entry.requestBody!.content["application/json"].schema;
  }
  throw new Error(`${opName} is not in the OpenAPI document`);
};

describe.each(Object.entries(CREATES))("%s", (opName, { required, defaults }) => {
  it("requires only its required fields in OpenAPI and publishes the others' defaults", async () => {
    const schema = await bodySchemaOf(opName);
    expect([...(schema.required ?? [])].sort()).toEqual([...required].sort());
    for (const [field, value] of Object.entries(defaults)) {
      if (value === undefined) expect(schema.properties[field]).not.toHaveProperty("default");
      else expect(schema.properties[field]?.default).toEqual(value);
    }
  });

  it("shows the same required fields and defaults in its MCP tool", async () => {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === opName)!.inputSchema as unknown as ObjectSchema;
    expect([...(schema.required ?? [])].sort()).toEqual([...required].sort());
    for (const [field, value] of Object.entries(defaults)) if (value !== undefined) expect(schema.properties[field]?.default).toEqual(value);
  });
});

it("says in words that a keyword's sources default to the project's enabled sources", async () => {
  const schema = await bodySchemaOf("create_keyword");
  expect(schema.properties.sources?.description).toMatch(/default: every source the project has enabled/);
});

const KEYWORD_DEFAULTS = { aliases: [], excludedTerms: [], filters: {}, caseSensitive: false, active: true };

it("creates a keyword over REST from projectId and value alone, listening on the project's enabled sources", async () => {
  const projectId = await createProject(h, owner);
  await h.call("update_project", { projectId, enabledSources: ["reddit", "youtube"] }, owner.key);
  const res = await h.call("create_keyword", { projectId, value: "Acme" }, owner.key);
  expect(res.status).toBe(201);
  expect(res.body.data).toMatchObject({ projectId, value: "Acme", sources: ["reddit", "youtube"], ...KEYWORD_DEFAULTS });
});

it("creates a keyword over MCP from projectId and value alone, right after the project", async () => {
  const created = await client.callTool({ name: "create_project", arguments: { name: "Two fields" } });
  const projectId = (created.structuredContent as { data: { id: string } }).data.id;
  const result = await client.callTool({ name: "create_keyword", arguments: { projectId, value: "Acme" } });
  expect(result.isError).toBeFalsy();
  expect((result.structuredContent as { data: unknown }).data).toMatchObject({ projectId, value: "Acme", sources: ["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"], ...KEYWORD_DEFAULTS });
});

it("answers a keyword without sources on a project the caller cannot see with 404, as with them", async () => {
  const stranger = await h.newActor();
  const projectId = await createProject(h, stranger);
  const res = await h.call("create_keyword", { projectId, value: "Acme" }, owner.key);
  expect(res.status).toBe(404);
});

it("creates a category and a saved view from projectId and name alone", async () => {
  const projectId = await createProject(h, owner);
  const category = await h.call("create_category", { projectId, name: "Questions" }, owner.key);
  expect(category.status).toBe(201);
  expect(category.body.data).toMatchObject({ name: "Questions", description: "", icon: "" });
  const view = await h.call("create_mention_view", { projectId, name: "Everything" }, owner.key);
  expect(view.status).toBe(201);
  expect(view.body.data).toMatchObject({ name: "Everything", filters: {} });
});

it("points no collector of the default test instance at a host beyond this machine", () => {
  // A keyword created without sources reaches every source, so a test instance must not leave any
  // polled source on a real platform: the free ones (no credentials needed) are served by simulators,
  // the others are not polled, having no credentials.
  const settings = h.config as Record<string, unknown>;
  const loopback = (u: unknown) => typeof u === "string" && ["127.0.0.1", "localhost", "[::1]"].includes(new URL(u).hostname);
  expect({
    hackernews: loopback(settings.EARSHOT_HACKERNEWS_API_URL),
    github: loopback(settings.EARSHOT_GITHUB_API_URL),
    blueskyStream: loopback(settings.EARSHOT_BLUESKY_JETSTREAM_URL),
    blueskyProfiles: loopback(settings.EARSHOT_BLUESKY_PUBLIC_API_URL),
  }).toEqual({ hackernews: true, github: true, blueskyStream: true, blueskyProfiles: true });
  const credentials = ["EARSHOT_X_BEARER_TOKEN", "EARSHOT_REDDIT_CLIENT_ID", "EARSHOT_YOUTUBE_API_KEY", "EARSHOT_LINKEDIN_CLIENT_ID", "EARSHOT_GITHUB_TOKEN"];
  for (const name of credentials) expect({ name, value: settings[name] }).toEqual({ name, value: undefined });
});
