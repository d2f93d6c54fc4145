import { ManualClock, PROJECT_STATUS_WORDS } from "@earshot/platform";
import { waitFor } from "../../../platform/src/testing/tmp";
import { type Harness, startHarness } from "./harness";

// Verified credentials are cached for a second (EARSHOT_CREDENTIAL_CACHE_MS) and keys expire: one clock the
// test moves drives the services and the edge, so nothing here waits for time to pass.

let h: Harness;
const clock = new ManualClock(new Date());
const CACHE_MS = 1000;
beforeAll(async () => {
  h = await startHarness({}, clock);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe("credentials", () => {
  it("stops a revoked key within a second", async () => {
    const owner = await h.newActor();
    const created = await h.call("create_api_key", { scopes: ["projects:read"] }, owner.key);
    const key = (created.body.data as { key: string; id: string }).key;
    expect((await h.call("list_projects", {}, key)).status).toBe(200);
    await h.call("revoke_api_key", { keyId: (created.body.data as { id: string }).id }, owner.key);
    clock.advance(CACHE_MS);
    expect((await h.call("list_projects", {}, key)).status).toBe(401);
  });

  it("stops every key of a deactivated account, and an operator's reactivation brings them back", async () => {
    const owner = await h.newActor();
    const second = await h.keyFor(owner, ["projects:read"]);
    expect((await h.call("list_projects", {}, second)).status).toBe(200);
    const res = await h.call("delete_account", { confirmation: "DELETE" }, owner.key);
    expect(res.status).toBe(200);
    clock.advance(CACHE_MS);
    expect((await h.call("list_projects", {}, second)).status).toBe(401);
    expect((await h.call("get_account", {}, owner.key)).status).toBe(401);
    await h.account.reactivateUser({ email: owner.email });
    clock.advance(CACHE_MS);
    expect((await h.call("list_projects", {}, second)).status).toBe(200);
  });

  it("pauses the projects of a deactivated account and resumes them on reactivation", async () => {
    const owner = await h.newActor();
    const created = await h.call("create_project", { name: "Watched" }, owner.key);
    const projectId = (created.body.data as { id: string }).id;
    const operatorView = async () => PROJECT_STATUS_WORDS.word((await h.as(owner, () => h.project.getProject({ projectId }))).project!.status);
    await h.call("delete_account", { confirmation: "DELETE" }, owner.key);
    await waitFor(async () => (await operatorView()) === "paused");
    await h.account.reactivateUser({ email: owner.email });
    await waitFor(async () => (await operatorView()) === "active");
  });

  it("lets a read-only key read and refuses its writes", async () => {
    const owner = await h.newActor();
    const created = await h.call("create_api_key", { scopes: ["projects:read", "account:read"] }, owner.key);
    const key = (created.body.data as { key: string }).key;
    expect((created.body.data as { readOnly: boolean }).readOnly).toBe(true);
    expect((await h.call("list_projects", {}, key)).status).toBe(200);
    expect((await h.call("create_project", { name: "No" }, key)).status).toBe(403);
  });

  it("never lets a key mint a scope it lacks", async () => {
    const owner = await h.newActor();
    const limited = await h.keyFor(owner, ["account:write", "account:read", "projects:read"]);
    const res = await h.call("create_api_key", { scopes: ["projects:write"] }, limited);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
    const ok = await h.call("create_api_key", { scopes: ["projects:read"] }, limited);
    expect(ok.status).toBe(201);
  });

  it("refuses an expired key", async () => {
    const owner = await h.newActor();
    // In the future by both clocks: the edge checks the request by the real one.
    const expiresAt = new Date(Math.max(Date.now(), clock.now().getTime()) + 60_000);
    const created = await h.call("create_api_key", { scopes: ["projects:read"], expiresAt: expiresAt.toISOString() }, owner.key);
    expect(created.status).toBe(201);
    const key = (created.body.data as { key: string }).key;
    expect((await h.call("list_projects", {}, key)).status).toBe(200);
    clock.set(expiresAt);
    expect((await h.call("list_projects", {}, key)).status).toBe(401);
  });

  it("shows a key's plaintext only when it is created", async () => {
    const owner = await h.newActor();
    const created = await h.call("create_api_key", { name: "Once", scopes: ["projects:read"] }, owner.key);
    const list = await h.call("list_api_keys", {}, owner.key);
    const row = (list.body.data as Array<Record<string, unknown>>).find((k) => k.id === (created.body.data as { id: string }).id);
    expect(row).toMatchObject({ name: "Once", prefix: expect.stringMatching(/^svc_sk_/) });
    expect(row).not.toHaveProperty("key");
    expect(JSON.stringify(list.body)).not.toContain((created.body.data as { key: string }).key);
  });
});
