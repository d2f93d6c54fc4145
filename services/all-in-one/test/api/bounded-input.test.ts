import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isDomainError } from "@earshot/platform";
import { commonV1 } from "@earshot/proto";
import { type Actor, type ApiResponse, type Harness, startHarness } from "./harness";
import { createProject } from "./world";

// Oversized and abusive text on every surface: each is a 400 naming the field, decided from cheap bounds
// before any costly counting, and the process keeps serving (the next request succeeds).

const HUGE_NAME = "n".repeat(300_000);
const LONG_DESCRIPTION = "d".repeat(20_000);
const ZALGO = `a${"\u0301".repeat(20_000)}`;

let h: Harness;
let owner: Actor;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newActor();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const expectFieldRefused = (res: ApiResponse | Record<string, unknown>, field: string) => {
  const body = "body" in res && "status" in res && typeof res.status === "number" ? (res as ApiResponse).body : res;
  expect(body).toMatchObject({ status: 400, code: "validation_failed", errors: expect.arrayContaining([expect.objectContaining({ path: field })]) });
};

const stillServing = async () => {
  const res = await h.call("create_project", { name: "Still here" }, owner.key);
  expect(res.status).toBe(201);
};

describe("bounded text over REST", () => {
  it("answers a 300,000-character project name with 400 naming name, and keeps serving", async () => {
    const res = await h.call("create_project", { name: HUGE_NAME }, owner.key);
    expect(res.status).toBe(400);
    expectFieldRefused(res, "name");
    await stillServing();
  });

  it("answers a 20,000-character description with 400 naming description, on create and on update", async () => {
    const created = await h.call("create_project", { name: "Described", description: LONG_DESCRIPTION }, owner.key);
    expect(created.status).toBe(400);
    expectFieldRefused(created, "description");
    const projectId = await createProject(h, owner);
    const updated = await h.call("update_project", { projectId, description: LONG_DESCRIPTION, icon: ZALGO }, owner.key);
    expect(updated.status).toBe(400);
    expectFieldRefused(updated, "description");
    expectFieldRefused(updated, "icon");
    await stillServing();
  });

  it("refuses a letter under 20,000 combining marks instead of storing a 1-character name", async () => {
    const res = await h.call("create_project", { name: ZALGO }, owner.key);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: "name", message: expect.stringMatching(/combining marks/) }]);
    const small = await h.call("create_project", { name: `a${"\u0301".repeat(30)}` }, owner.key);
    expect(small.status).toBe(400);
    await stillServing();
  });

  it("bounds every other text field: invitations, key names, account name, dashboard text, confirmation", async () => {
    const projectId = await createProject(h, owner);
    const invite = await h.call("invite_project_member", { projectId, email: `${"a".repeat(300_000)}@example.com` }, owner.key);
    expectFieldRefused(invite, "email");
    expectFieldRefused(await h.call("create_api_key", { name: HUGE_NAME, scopes: ["projects:read"] }, owner.key), "name");
    expectFieldRefused(await h.call("create_api_key", { name: ZALGO, scopes: ["projects:read"] }, owner.key), "name");
    expectFieldRefused(await h.call("update_account", { name: ZALGO }, owner.key), "name");
    const dashboard = await h.call("set_public_dashboard", { projectId, enabled: true, description: ZALGO, websiteUrl: `https://example.com/${"x".repeat(300_000)}` }, owner.key);
    expectFieldRefused(dashboard, "description");
    expectFieldRefused(dashboard, "websiteUrl");
    expectFieldRefused(await h.call("delete_account", { confirmation: "D".repeat(300_000) }, owner.key), "confirmation");
    expectFieldRefused(await h.call("list_projects", { cursor: "c".repeat(5_000) }, owner.key), "cursor");
    await stillServing();
  });

  it("answers 400 naming cursor for a forged cursor whose value would be read as query operators", async () => {
    for (const forged of [[{ $foo: 1 }, "x"], [{ $in: 1 }, "x"], { $in: 1 }]) {
      const cursor = Buffer.from(JSON.stringify(forged)).toString("base64url");
      expectFieldRefused(await h.call("list_projects", { cursor }, owner.key), "cursor");
    }
  });

  it("still takes the text people write: emoji, flags, CJK and accents", async () => {
    const res = await h.call("create_project", { name: "東京 👩🏽‍💻 🇫🇷 café", icon: "👨‍👩‍👧‍👦", description: "Ça marche. 한국어도 돼요." }, owner.key);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: "東京 👩🏽‍💻 🇫🇷 café", icon: "👨‍👩‍👧‍👦" });
  });
});

describe("bounded text over MCP", () => {
  const connect = async () => {
    const client = new Client({ name: "bounds-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.key}` } } }));
    return client;
  };
  const problemOf = (result: { content?: unknown }) => JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as Record<string, unknown>;

  it("answers oversized and abusive tool arguments with an isError 400 naming the field, and keeps serving", async () => {
    const client = await connect();
    for (const [args, field] of [
      [{ name: HUGE_NAME }, "name"],
      [{ name: "Described", description: LONG_DESCRIPTION }, "description"],
      [{ name: ZALGO }, "name"],
    ] as const) {
      const result = await client.callTool({ name: "create_project", arguments: args });
      expect(result.isError).toBe(true);
      expectFieldRefused(problemOf(result), field);
    }
    const ok = await client.callTool({ name: "create_project", arguments: { name: "After the flood" } });
    expect(ok.isError).toBeFalsy();
    await client.close();
  });
});

describe("bounded text straight over gRPC", () => {
  const refusalOf = async (call: Promise<unknown>) => {
    // The gRPC client already turns a refusal back into the service's domain error.
    const err = await call.then(() => undefined, (e: unknown) => e);
    if (!isDomainError(err)) throw new Error(`expected a domain error, got ${String(err)}`);
    return err;
  };

  it("has the services refuse what the edge would, naming the field", async () => {
    for (const name of [HUGE_NAME, ZALGO]) {
      expect(await refusalOf(h.as(owner, () => h.project.createProject({ name })))).toMatchObject({ code: "validation_failed", errors: [{ path: "name" }] });
      expect(await refusalOf(h.as(owner, () => h.account.updateUser({ name })))).toMatchObject({ code: "validation_failed", errors: [{ path: "name" }] });
    }
    const projectId = await createProject(h, owner);
    expect(await refusalOf(h.as(owner, () => h.project.setPublicDashboard({ projectId, enabled: true, description: ZALGO })))).toMatchObject({
      code: "validation_failed",
      errors: [{ path: "description" }],
    });
    expect(await refusalOf(h.as(owner, () => h.project.inviteProjectMember({ projectId, email: `a@${"a.".repeat(100_000)}@`, role: commonV1.Role.ROLE_VIEWER, acceptUrlBase: h.url })))).toMatchObject({
      code: "validation_failed",
      errors: [{ path: "email" }],
    });
    await stillServing();
  });
});
