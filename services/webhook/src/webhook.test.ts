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

describe("a refused URL says what is wrong with it", () => {
  const SETTING = "EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true";
  const cases: Array<[string, string, RegExp]> = [
    ["a space", "https://hooks.example.com/my hooks", /^must not contain spaces or other white space \(write a space in a path or query as %20\)$/],
    ["a port past 65535", "https://hooks.example.com:99999/earshot", /^has an invalid port: a port is a number from 1 to 65535$/],
    ["a port that is not a number", "https://hooks.example.com:https/earshot", /^has an invalid port/],
    ["port 0", "https://hooks.example.com:0/earshot", /^has an invalid port/],
    ["no scheme", "hooks.example.com/earshot", /^must be an absolute URL with a scheme and a host, such as https:\/\/hooks.example.com\/earshot$/],
    ["no host", "https://", /^must be an absolute URL/],
    ["another scheme", "ftp://hooks.example.com/earshot", /^must be an https URL$/],
    ["plain http", "http://public.example/hooks", new RegExp(`^must be an https URL: plain http is accepted only for a receiver on a private or loopback address, where the operator can allow private networks with ${SETTING}$`)],
    ["a host that does not resolve", "https://hooks.example.invalid/earshot", /^must name a host that resolves: hooks\.example\.invalid is not known to DNS$/],
    ["a private address", "https://internal.example/hooks", new RegExp(`^must reach a public address: internal\\.example \\(10\\.1\\.2\\.3\\) is private \\(RFC 1918\\); the operator can allow private networks with ${SETTING}$`)],
    ["a loopback address", "https://127.0.0.1:8443/hooks", new RegExp(`^must reach a public address: 127\\.0\\.0\\.1 is loopback; the operator can allow private networks with ${SETTING}$`)],
  ];

  beforeEach(async () => {
    world = await openWebhookWorld({ names: { "internal.example": ["10.1.2.3"], "public.example": [PUBLIC] } });
  });

  it.each(cases)("%s: 400 naming url, with its own message, at create and at update", async (_what, url, message) => {
    const created = await refusal(create(url));
    expect(created).toMatchObject({ code: "validation_failed", paths: ["url"], messages: [expect.stringMatching(message)] });
    const { endpoint } = await create("https://public.example/hooks");
    const updated = await refusal(updateWebhook(world.deps, owner, endpoint._id, { url }));
    expect(updated).toMatchObject({ code: "validation_failed", paths: ["url"], messages: [expect.stringMatching(message)] });
    expect((await getWebhook(world.deps, owner, endpoint._id)).url).toBe("https://public.example/hooks");
  });

  it("gives the space, the port, the non-URL, http, the unknown host and the private address six different messages", async () => {
    const messages = new Set<string>();
    for (const url of ["https://a b.example/", "https://hooks.example.com:99999/", "hooks.example.com", "http://public.example/", "https://x.invalid/", "https://10.0.0.8/"]) {
      messages.add((await refusal(create(url))).messages[0] as string);
    }
    expect(messages.size).toBe(6);
  });
});

describe("where the operator allows private networks", () => {
  beforeEach(async () => {
    world = await openWebhookWorld({ allowPrivateNetworks: true, names: { localhost: ["127.0.0.1", "::1"], "receiver.lan": ["192.168.1.20"], "public.example": [PUBLIC], "mixed.example": [PUBLIC, "10.0.0.9"] } });
  });

  it("takes plain http to a loopback or private address, at create and at update, so a developer can use a plain local receiver", async () => {
    for (const url of ["http://127.0.0.1:8080/hooks", "http://localhost:8080/hooks", "http://[::1]:8080/hooks", "http://receiver.lan/hooks", "https://10.0.0.8/hooks"]) {
      const { endpoint } = await create(url);
      expect(endpoint.url).toBe(url);
    }
    const { endpoint } = await create("https://public.example/hooks");
    expect((await updateWebhook(world.deps, owner, endpoint._id, { url: "http://127.0.0.1:9000/hooks" })).endpoint.url).toBe("http://127.0.0.1:9000/hooks");
  });

  it("still refuses plain http to a public address, naming the address", async () => {
    const only = "must be an https URL: plain http is accepted only for a receiver on a private or loopback address, and";
    for (const [url, why] of [
      ["http://public.example/hooks", `public.example resolves to the public address ${PUBLIC}`],
      ["http://mixed.example/hooks", `mixed.example resolves to the public address ${PUBLIC}`],
      ["http://8.8.8.8/hooks", "8.8.8.8 is a public address"],
    ] as const) {
      const r = await refusal(create(url));
      expect(r).toMatchObject({ code: "validation_failed", paths: ["url"], messages: [`${only} ${why}`] });
    }
  });

  it("still says a host that does not resolve does not", async () => {
    expect((await refusal(create("http://receiver.invalid/hooks"))).messages).toEqual(["must name a host that resolves: receiver.invalid is not known to DNS"]);
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
