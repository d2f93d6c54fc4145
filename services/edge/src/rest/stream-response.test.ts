import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Writable } from "node:stream";
import { createLogger, currentCaller, DomainError, ManualClock, openEmbeddedStore, type DocumentStore } from "@earshot/platform";
import { serviceAddresses } from "@earshot/registry";
import express, { type Response } from "express";
import { z } from "zod";
import { type Backends, connectBackends } from "../backends";
import { defineOperation, type Operation } from "../catalog/operation";
import { mentionSchema } from "../catalog/mentions/resource";
import { requestContext } from "../http/request-context";
import { createCredentialVerifier } from "../pipeline/credentials";
import { createPipeline, type Pipeline } from "../pipeline/execute";
import { IdempotencyStore } from "../pipeline/idempotency";
import { MembershipCache } from "../pipeline/memberships";
import type { Principal } from "../pipeline/principal";
import { RateLimiter } from "../pipeline/rate-limit";
import { restRouter, writeStreamResponse } from "./router";

// Downloads through the one pipeline and the generated routes: chosen by format or Accept (406 when
// nothing fits), pieces pulled with the request's caller and only as fast as the client takes them, a
// failure before the first byte answered as a problem and one after it cutting the connection.

const principal: Principal = {
  userId: "usr_reader",
  workspaceId: "wsp_1",
  email: "reader@example.com",
  scopes: ["mentions:read"],
  credentialId: "key_1",
  credentialType: "api_key",
  allowances: { projects: 1, keywords: 1, seats: 1, webhookDeliveriesPerDay: 1, linkedinSyncsPerDay: 1 },
};

/** What the download's producer saw for each piece: which caller its calls would have carried. */
let produced: Array<string | undefined> = [];

const download = defineOperation({
  name: "download_things",
  title: "Download things",
  description: "A test download.",
  method: "GET",
  path: "/things/export",
  scope: "mentions:read",
  tag: "Test",
  output: mentionSchema,
  restOnly: true,
  download: {
    formats: {
      ndjson: { mediaType: "application/x-ndjson", extension: "ndjson", lines: true, description: "lines" },
      csv: { mediaType: "text/csv", extension: "csv", description: "rows" },
    },
  },
  input: {
    query: z.object({
      pieces: z.coerce.number().int().min(0),
      /** Fails on producing this piece (0: before answering at all). */
      failAt: z.coerce.number().int().optional(),
      format: z.enum(["ndjson", "csv"]).optional(),
    }),
  },
  successStatus: 200,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, ctx) => {
    if (input.failAt === 0) throw new DomainError("not_found", "Project was not found.");
    async function* pieces() {
      for (let i = 1; i <= input.pieces; i++) {
        await Promise.resolve();
        produced.push(currentCaller()?.userId);
        if (input.failAt === i) throw new Error("the service went away");
        yield ctx.format === "csv" ? `row ${i}\r\n` : `${JSON.stringify({ piece: i })}\n`;
      }
    }
    return { stream: { filename: "things-prj_1.x", chunks: pieces() } };
  },
});

describe("downloads", () => {
  let store: DocumentStore;
  let backends: Backends;
  let rateLimiter: RateLimiter;
  let pipeline: Pipeline;
  let server: Server;
  let base: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    const clock = new ManualClock();
    store = await openEmbeddedStore();
    backends = connectBackends(serviceAddresses(() => "127.0.0.1:1"));
    rateLimiter = new RateLimiter(store, clock, { limit: 1000, windowSeconds: 60 });
    pipeline = createPipeline({
      backends,
      verifier: createCredentialVerifier([{ accepts: (t) => t === "reader", verify: async () => principal }]),
      rateLimiter,
      idempotency: new IdempotencyStore(store, clock),
      memberships: new MembershipCache({ load: async () => [], maxAgeMs: 1000 }),
      clock,
      logger: createLogger("test", { level: "error", destination: { write: (line: string) => void logLines.push(line) } }),
      publicUrl: "http://localhost",
    });
    const app = express();
    app.use(requestContext);
    app.use("/api/v1", restRouter([download as Operation], pipeline, () => "http://localhost/api/v1"));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/things/export`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    backends.close();
    await rateLimiter.close();
    await store.close();
  });
  beforeEach(() => {
    produced = [];
  });

  const get = (query: string, headers: Record<string, string> = {}) => fetch(`${base}?${query}`, { headers: { Authorization: "Bearer reader", ...headers } });

  it("streams every piece as an attachment, each produced with the request's caller", async () => {
    const res = await get("pieces=3");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="things-prj_1.x"');
    expect(res.headers.get("ratelimit-policy")).toMatch(/q=1000/);
    expect(await res.text()).toBe('{"piece":1}\n{"piece":2}\n{"piece":3}\n');
    expect(produced).toEqual(["usr_reader", "usr_reader", "usr_reader"]);
  });

  it("takes the format from format first, then from Accept, and answers 406 naming Accept when nothing offered fits", async () => {
    const csv = await get("pieces=1", { Accept: "text/csv" });
    expect([csv.headers.get("content-type"), await csv.text()]).toEqual(["text/csv; charset=utf-8", "row 1\r\n"]);
    const weighted = await get("pieces=1", { Accept: "application/x-ndjson;q=0.5, text/csv" });
    expect(weighted.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    await weighted.text();
    const formatWins = await get("pieces=1&format=ndjson", { Accept: "application/xml" });
    expect([formatWins.status, await formatWins.text()]).toEqual([200, '{"piece":1}\n']);
    const anything = await get("pieces=1", { Accept: "*/*" });
    expect([anything.headers.get("content-type"), await anything.text()]).toEqual(["application/x-ndjson", '{"piece":1}\n']);

    const refused = await get("pieces=1", { Accept: "application/xml" });
    expect(refused.status).toBe(406);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(await refused.json()).toMatchObject({ status: 406, code: "not_acceptable", errors: [{ path: "Accept" }] });
    expect(produced).toEqual(["usr_reader", "usr_reader", "usr_reader", "usr_reader"]);
  });

  it("checks the credential and scope before anything is produced", async () => {
    const res = await fetch(`${base}?pieces=2`);
    expect(res.status).toBe(401);
    expect(produced).toEqual([]);
  });

  it("answers a failure before the first byte as an ordinary problem", async () => {
    const res = await get("pieces=2&failAt=0");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.headers.get("content-disposition")).toBeNull();
    expect(await res.json()).toMatchObject({ code: "not_found" });
  });

  it("answers a failure of the first piece as a problem too, since nothing was sent yet", async () => {
    const res = await get("pieces=2&failAt=1");
    expect(res.status).toBe(500);
    expect(res.headers.get("content-disposition")).toBeNull();
    expect(await res.json()).toMatchObject({ code: "internal" });
  });

  it("cuts the connection on a failure after streaming began, so the client cannot take the body for whole, and logs it", async () => {
    logLines.length = 0;
    // Whether the head reached the client before the cut depends on the socket; either way, no whole body.
    const outcome = await get("pieces=5&failAt=3").then(
      (res) => res.text().then(() => `complete ${res.status}`, () => "cut"),
      () => "cut",
    );
    expect(outcome).toBe("cut");
    expect(produced).toHaveLength(3);
    expect(logLines.join("")).toContain("download failed after it began");
  });
});

describe("writing a download", () => {
  /** A response whose socket takes one write at a time, when the test says. */
  class HeldResponse extends Writable {
    readonly written: string[] = [];
    private release: (() => void) | undefined;
    private accepted: (() => void) | undefined;
    headersSent = false;
    constructor() {
      super({ highWaterMark: 1, decodeStrings: false });
    }
    override _write(chunk: string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
      this.written.push(chunk);
      this.release = () => callback();
      this.accepted?.();
    }
    /** Resolves once a write reached the socket. */
    nextWrite = () => new Promise<void>((resolve) => (this.accepted = resolve));
    take = () => this.release?.();
    setHeader = () => this;
    status = () => this;
  }

  it("asks for the next piece only once the client has taken the last one (backpressure)", async () => {
    let asked = 0;
    async function* pieces() {
      for (let i = 1; i <= 3; i++) {
        asked = i;
        yield `piece ${i}\n`;
      }
    }
    const res = new HeldResponse();
    const logger = createLogger("test", { level: "silent" });
    const req = { originalUrl: "/api/v1/things/export", requestId: "req_1" };
    const firstWrite = res.nextWrite();
    const done = writeStreamResponse(req as never, res as unknown as Response, { status: 200, body: undefined, headers: {}, stream: pieces() }, logger);
    await firstWrite;
    // The first piece is on the socket and not taken: however long the producer is left, it is not asked again.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(1);
    const secondWrite = res.nextWrite();
    res.take();
    await secondWrite;
    expect(asked).toBe(2);
    const thirdWrite = res.nextWrite();
    res.take();
    await thirdWrite;
    res.take();
    await done;
    expect(res.written).toEqual(["piece 1\n", "piece 2\n", "piece 3\n"]);
  });
});
