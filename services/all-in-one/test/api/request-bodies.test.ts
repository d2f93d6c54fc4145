import { OPERATIONS, type Operation, splitInput } from "@earshot/edge";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { CASES } from "./cases";
import { type Harness, opByName, startHarness } from "./harness";
import { rawRequest } from "./raw-http";
import { buildWorld, type World } from "./world";

// What a REST write does with its body, for every write of the catalog: a body must be JSON (415
// naming the expected type otherwise, never read as no body), and a DELETE's query fields may come in
// a JSON body instead, with the same outcome and the same idempotency fingerprint; a body field that
// belongs in the path, or to no input at all, is a 400 saying where it goes.

let h: Harness;
let w: World;
let sims: RunningSimulators;

beforeAll(async () => {
  sims = await startSimulators({ platforms: ["linkedin"], generate: false });
  h = await startHarness({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "86400" });
  w = await buildWorld(h);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await sims?.close();
});

const WRITES = OPERATIONS.filter((op) => op.method !== "GET");
const DELETES = OPERATIONS.filter((op) => op.method === "DELETE");
const fields = (schema: Operation["input"]["query"]) => Object.keys(schema?.shape ?? {});

/** The operation's path with placeholder ids (the body is refused before any id is looked at). */
const placeholderPath = (op: Operation) => `/api/v1${op.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => `${name}_placeholder`)}`;

describe.each(WRITES.map((op) => [op.name, op] as const))("%s", (_name, op) => {
  it.each([
    ["no Content-Type", {}],
    ["Content-Type: text/plain", { "Content-Type": "text/plain" }],
    ["Content-Type: application/x-www-form-urlencoded", { "Content-Type": "application/x-www-form-urlencoded" }],
  ])("answers a JSON body sent with %s with 415 naming application/json", async (_what, headers) => {
    const res = await rawRequest(h.url, { method: op.method, path: placeholderPath(op), headers: { Authorization: `Bearer ${w.owner.key}`, ...headers }, body: '{"name":"Launch"}' });
    expect({ status: res.status, type: res.headers["content-type"] }).toEqual({ status: 415, type: expect.stringMatching(/^application\/problem\+json/) });
    const problem = JSON.parse(res.body) as { code: string; detail: string; errors: unknown };
    expect(problem).toMatchObject({ code: "unsupported_media_type", errors: [{ path: "Content-Type", message: "must be application/json" }] });
    expect(problem.detail).toContain("Content-Type: application/json");
  });

  it("reads no body as no body: without Content-Type and with Content-Length 0 it is not 415", async () => {
    const res = await rawRequest(h.url, { method: op.method, path: placeholderPath(op), headers: { Authorization: `Bearer ${w.owner.key}` }, body: "" });
    expect(res.status).not.toBe(415);
  });
});

it("takes JSON under a +json media type and with a charset", async () => {
  for (const type of ["application/json; charset=utf-8", "application/merge-patch+json"]) {
    const res = await h.api("PATCH", "/api/v1/account", { key: w.owner.key, rawBody: '{"name":"Olive Owner"}', headers: { "Content-Type": type } });
    expect({ type, status: res.status }).toEqual({ type, status: 200 });
  }
});

describe.each(DELETES.map((op) => [op.name, op] as const))("%s with a JSON body", (name, op) => {
  const c = CASES[name]!;
  const query = fields(op.input.query);
  const path = fields(op.input.path);

  /** The case's input with its query fields sent in a JSON body instead of the query. */
  const inBody = async (input: Record<string, unknown>, key: string, idempotencyKey?: string) => {
    const parts = splitInput(opByName(name), input);
    return h.api(op.method, h.pathOf(name, parts.path), { key, body: parts.query, ...(idempotencyKey ? { idempotencyKey } : {}) });
  };

  if (op.input.body) {
    it("reads its own body fields and refuses unknown ones by name", async () => {
      const res = await h.api(op.method, h.pathOf(name, {}), { key: w.owner.key, body: { projectId: w.projectId } });
      expect(res.status).toBe(400);
      expect(res.body.errors?.map((e) => e.path)).toContain("projectId");
    });
    return;
  }

  if (query.length > 0) {
    it(`accepts its query fields (${query.join(", ")}) in the body, with the outcome of the query`, async () => {
      const happy = await c.happy(h, w);
      const key = happy.key ?? w.owner.key;
      const res = await inBody(happy.input, key);
      expect(res.status).toBe(happy.status);
      happy.check?.(res.body, res);
      const bad = await c.bad(h, w);
      const refused = await inBody(bad.input, bad.key ?? w.owner.key);
      expect(refused.status).toBe(400);
      expect((refused.body.errors ?? []).map((e) => e.path).sort()).toEqual([...bad.fields].sort());
    });

    it("replays a retry that moved a field between the query and the body (one request, one fingerprint)", async () => {
      const happy = await c.happy(h, w);
      const key = happy.key ?? w.owner.key;
      const idem = `idem-body-${name}-${Math.random().toString(36).slice(2)}`;
      const first = await h.call(name, happy.input, key, { idempotencyKey: idem });
      const again = await inBody(happy.input, key, idem);
      expect(again.status).toBe(first.status);
      // Fields the happy input leaves to their default are still the same request.
      if (Object.keys(splitInput(op, happy.input).query).length > 0) expect(again.headers.get("idempotent-replayed")).toBe("true");
    });

    it("refuses a field given in the query and in the body with two values", async () => {
      const field = query[0]!;
      const res = await h.api(op.method, `${h.pathOf(name, Object.fromEntries(path.map((p) => [p, `${p}_x`])))}?${field}=one`, { key: w.owner.key, body: { [field]: "two" } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: field, message: expect.stringContaining("in the query and in the body") }]);
    });
  }

  if (path.length > 0) {
    it(`says that ${path.join(", ")} goes in the path`, async () => {
      const ids = Object.fromEntries(path.map((p) => [p, `${p}_x`]));
      const res = await h.api(op.method, h.pathOf(name, ids), { key: w.owner.key, body: ids });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(path.map((p) => ({ path: p, message: expect.stringContaining("goes in the path (/api/v1") })));
    });
  }

  it("refuses a body field that is no input of the operation, by name", async () => {
    const ids = Object.fromEntries(path.map((p) => [p, `${p}_x`]));
    const res = await h.api(op.method, h.pathOf(name, ids), { key: w.owner.key, body: { colour: "red" } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: "colour", message: expect.stringContaining(`is not a field of ${name}`) }]);
  });

  it("takes an empty JSON object as no body", async () => {
    const happy = await c.happy(h, w);
    const res = await h.api(op.method, h.pathOf(name, happy.input), { key: happy.key ?? w.owner.key, body: {} });
    expect(res.status).toBe(happy.status);
  });
});
