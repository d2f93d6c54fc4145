import { type Harness, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe("idempotency", () => {
  it("makes exactly one project from 20 concurrent creates with one Idempotency-Key", async () => {
    const owner = await h.newActor();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.call("create_project", { name: "Launch" }, owner.key, { idempotencyKey: "launch-project-0001" })),
    );
    const created = results.filter((r) => r.status === 201);
    const inFlight = results.filter((r) => r.status === 409);
    expect(created.length + inFlight.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => (r.body.data as { id: string }).id)).size).toBe(1);
    inFlight.forEach((r) => expect(r.body.code).toBe("idempotency_in_progress"));
    const list = await h.call("list_projects", {}, owner.key);
    expect((list.body.data as Array<{ name: string }>).filter((p) => p.name === "Launch")).toHaveLength(1);
  });

  it("shares one key space between a user's credentials and keeps users apart", async () => {
    const owner = await h.newActor();
    const secondKey = await h.keyFor(owner, ["projects:write", "projects:read"]);
    const a = await h.call("create_project", { name: "Shared" }, owner.key, { idempotencyKey: "same-key-for-both" });
    const b = await h.call("create_project", { name: "Shared" }, secondKey, { idempotencyKey: "same-key-for-both" });
    expect(b.body).toEqual(a.body);
    const other = await h.newActor();
    const c = await h.call("create_project", { name: "Shared" }, other.key, { idempotencyKey: "same-key-for-both" });
    expect(c.status).toBe(201);
    expect((c.body.data as { id: string }).id).not.toBe((a.body.data as { id: string }).id);
  });

  it("replays a stored 4xx answer instead of running the request again", async () => {
    const owner = await h.newActor();
    const a = await h.call("create_project", { name: "" }, owner.key, { idempotencyKey: "bad-then-retried" });
    expect(a.status).toBe(400);
    const b = await h.call("create_project", { name: "" }, owner.key, { idempotencyKey: "bad-then-retried" });
    expect(b.status).toBe(400);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
  });
});
