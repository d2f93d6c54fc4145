import { isDomainError } from "@earshot/platform";
import { testProjectCaller } from "@earshot/platform/testing";
import { createWebhook, getWebhook, updateWebhook } from "./domain/endpoints";
import { openWebhookWorld, PUBLIC_ADDRESS as PUBLIC, type WebhookWorld } from "./test-support";

let world: WebhookWorld;
afterEach(async () => world?.close());

const owner = testProjectCaller({ prj_a: "owner", prj_v: "viewer" }, { workspaceId: "wsp_1" });
const stranger = testProjectCaller({}, { workspaceId: "wsp_2", userId: "usr_2" });

const refusal = async (run: Promise<unknown>) => {
  try {
    await run;
  } catch (err) {
    if (isDomainError(err)) return { code: err.code, paths: (err.errors).map((e) => e.path), messages: (err.errors).map((e) => e.message) };
    throw err;
  }
  throw new Error("expected a refusal");
};

const create = (url: string, extra: Partial<{ projectId: string; eventTypes: string[] }> = {}, caller = owner, key?: string) =>
  createWebhook(world.deps, caller, { name: "Hook", url, eventTypes: ["mention.created"], ...extra }, key);

describe("the SSRF rule at registration", () => {
  beforeEach(async () => {
    world = await openWebhookWorld({
      names: { "internal.example": ["10.1.2.3"], "mixed.example": [PUBLIC, "192.168.0.7"], "public.example": [PUBLIC] },
    });
  });

  it.each([
    ["http URLs", "http://public.example/hooks", /https/],
    ["localhost", "https://localhost/hooks", /loopback/],
    ["127.0.0.1", "https://127.0.0.1/hooks", /loopback/],
    ["::1", "https://[::1]/hooks", /loopback/],
    ["10.x", "https://10.0.0.8/hooks", /private/],
    ["the metadata address", "https://169.254.169.254/latest/meta-data", /link-local/],
    ["IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/hooks", /IPv4-mapped loopback/],
    ["a name resolving to a private address", "https://internal.example/hooks", /private/],
    ["a name resolving to one public and one private address", "https://mixed.example/hooks", /private/],
  ])("refuses %s with 400 naming url", async (_what, url, reason) => {
    const r = await refusal(create(url));
    expect(r).toMatchObject({ code: "validation_failed", paths: ["url"] });
    expect(r.messages[0]).toMatch(reason);
    expect(await world.events()).toEqual([]);
  });

  it("takes a name resolving to public addresses only", async () => {
    const { endpoint, secret } = await create("https://public.example/hooks");
    expect(endpoint.url).toBe("https://public.example/hooks");
    expect(secret).toMatch(/^whsec_/);
  });
});


describe("endpoints", () => {
  beforeEach(async () => {
    world = await openWebhookWorld();
  });

  it("refuses event types nobody may subscribe to, naming each", async () => {
    const r = await refusal(create("https://hooks.example/", { eventTypes: ["member.added", "mention.created", "post.collected", "user.created", "api_key.created", "webhook.test"] }));
    expect(r.paths).toEqual(["eventTypes.0", "eventTypes.2", "eventTypes.3", "eventTypes.4", "eventTypes.5"]);
  });

  it("keeps the secret sealed: never in the store in plain, never in an event, and a replayed create answers the same secret", async () => {
    const first = await create("https://hooks.example/", {}, owner, "idem-create-1");
    const again = await create("https://hooks.example/", {}, owner, "idem-create-1");
    expect(again.endpoint._id).toBe(first.endpoint._id);
    expect(again.secret).toBe(first.secret);
    const stored = JSON.stringify(await world.deps.collections.endpoints.find({}));
    expect(stored).not.toContain(first.secret);
    expect(JSON.stringify(await world.events())).not.toContain(first.secret);
    expect(JSON.stringify(await getWebhook(world.deps, owner, first.endpoint._id))).not.toContain(first.secret as string);
  });

  it("rotates: the new secret is answered once, the old one signs beside it for 24 hours", async () => {
    const { endpoint, secret } = await create("https://hooks.example/");
    const rotated = await updateWebhook(world.deps, owner, endpoint._id, { rotateSecret: true });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.endpoint.secrets.map((s) => world.deps.sealer.open(s.sealed))).toEqual([rotated.secret, secret]);
    expect(rotated.endpoint.secrets[1]?.expiresAt).toEqual(new Date(world.clock.now().getTime() + 24 * 3600 * 1000));
    world.clock.advance(24 * 3600 * 1000 + 1);
    const again = await updateWebhook(world.deps, owner, endpoint._id, { rotateSecret: true });
    expect(again.endpoint.secrets).toHaveLength(2);
  });

  it("scopes access: a project's endpoint follows the project's roles, a workspace's belongs to its owner", async () => {
    const project = await create("https://hooks.example/", { projectId: "prj_a" });
    const workspace = await create("https://hooks.example/");
    const viewer = testProjectCaller({ prj_a: "viewer" }, { workspaceId: "wsp_3", userId: "usr_3" });
    expect((await getWebhook(world.deps, viewer, project.endpoint._id))._id).toBe(project.endpoint._id);
    expect(await refusal(updateWebhook(world.deps, viewer, project.endpoint._id, { name: "x" }))).toMatchObject({ code: "forbidden" });
    expect(await refusal(getWebhook(world.deps, viewer, workspace.endpoint._id))).toMatchObject({ code: "not_found" });
    expect(await refusal(getWebhook(world.deps, stranger, project.endpoint._id))).toMatchObject({ code: "not_found" });
    expect(await refusal(create("https://hooks.example/", { projectId: "prj_v" }))).toMatchObject({ code: "forbidden" });
  });
});
