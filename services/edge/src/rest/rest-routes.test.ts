import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { OPERATIONS } from "../catalog";
import { requestContext } from "../http/request-context";
import type { Pipeline } from "../pipeline/execute";
import { restRouter, routeOrder } from "./router";

// What the generated routes hand the pipeline: which operation (a literal segment wins over a parameter
// wherever the catalog lists them, so /mentions/analytics and /mentions/export are never taken as a
// mention id) and which query values (every repeat of a list parameter, the last of any other).

describe("route order", () => {
  it("puts a literal segment before a parameter where two paths first differ, and keeps catalog order otherwise", () => {
    expect(routeOrder(["/mentions/:mentionId", "/mentions", "/mentions/export", "/mentions/:mentionId/category", "/mentions/analytics"])).toEqual([
      "/mentions",
      "/mentions/export",
      "/mentions/analytics",
      "/mentions/:mentionId",
      "/mentions/:mentionId/category",
    ]);
  });

  describe("the catalog's routes", () => {
    let server: Server;
    let base: string;
    const reached: string[] = [];
    let query: Record<string, unknown> = {};
    beforeAll(async () => {
      // A pipeline that only says what it was given: routing is all this test is about.
      const pipeline = {
        execute: async (op: { name: string }, request: { query: Record<string, unknown> }) => {
          reached.push(op.name);
          query = request.query;
          return { status: 200, body: {}, headers: {} };
        },
      } as unknown as Pipeline;
      const app = express();
      app.use(requestContext);
      app.use("/api/v1", restRouter(OPERATIONS, pipeline, () => "http://localhost/api/v1"));
      server = await new Promise<Server>((resolve) => {
        const s = app.listen(0, "127.0.0.1", () => resolve(s));
      });
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it.each([
      ["GET", "/mentions/analytics", "get_mention_analytics"],
      ["GET", "/mentions/export", "export_mentions"],
      ["GET", "/mentions/men_1", "get_mention"],
      ["PATCH", "/mentions/men_1", "update_mention_status"],
      ["PUT", "/mentions/men_1/category", "categorize_mention"],
      ["GET", "/mentions", "list_mentions"],
    ])("sends %s %s to %s", async (method, path, name) => {
      reached.length = 0;
      const res = await fetch(`${base}${path}`, { method });
      expect(res.status).toBe(200);
      expect(reached).toEqual([name]);
    });

    it("answers a method a literal path lacks with 405 naming its own methods, not another path's operation", async () => {
      reached.length = 0;
      const res = await fetch(`${base}/mentions/export`, { method: "PATCH" });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET");
      expect(reached).toEqual([]);
    });

    it("keeps every repeat of a list parameter and the last value of any other", async () => {
      await fetch(`${base}/mentions?projectId=prj_1&projectId=prj_2&status=open&status=done,follow_up&limit=1&limit=2&q=a,b`);
      expect(query).toEqual({ projectId: "prj_2", status: ["open", "done,follow_up"], limit: "2", q: "a,b" });
    });
  });
});
