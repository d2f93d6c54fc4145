import { silentLogger } from "@earshot/platform";
import express from "express";
import request from "supertest";
import type { Backends } from "../backends";
import { PAGES } from "../catalog";
import { DashboardState } from "../catalog/public-dashboard/dashboard-state";
import { definePage } from "./page";
import { pageRoutes } from "./routes";

// Pages are registered from their declarations: each path and method it names, a form parser only where
// it reads a form, and the deps the gateway hands every page.

const deps = {
  backends: {} as Backends,
  logger: silentLogger(),
  publicUrl: "https://earshot.example",
  secureCookies: true,
  dashboards: { state: new DashboardState({ load: async () => undefined, maxAgeMs: 0 }) },
};

describe("page routes", () => {
  it("serves each declared path with the declared method and hands the handler its deps", async () => {
    const page = definePage({
      title: "Echo",
      method: "POST",
      paths: ["/echo/:id", "/other-echo/:id"],
      form: true,
      handler: async (req, res, d) => void res.json({ id: req.params.id, body: req.body, publicUrl: d.publicUrl, secure: d.secureCookies }),
    });
    const app = express().use(pageRoutes([page], deps));
    const answer = await request(app).post("/other-echo/7").type("form").send("name=Ana");
    expect(answer.body).toEqual({ id: "7", body: { name: "Ana" }, publicUrl: "https://earshot.example", secure: true });
    expect((await request(app).get("/echo/7")).status).toBe(404);
  });

  it("reads no form for a page that declares none", async () => {
    const page = definePage({ title: "Plain", method: "POST", paths: ["/plain"], handler: async (req, res) => void res.json({ body: req.body ?? null }) });
    const app = express().use(pageRoutes([page], deps));
    expect((await request(app).post("/plain").type("form").send("a=b")).body).toEqual({ body: null });
  });

  it("lists the front door, the invitation, the LinkedIn callback and the public dashboard pages of the catalog", () => {
    expect(PAGES.flatMap((p) => p.paths.map((path) => `${p.method} ${path}`))).toEqual([
      "GET /",
      "GET /invitations/:token",
      "POST /invitations/:token",
      "GET /integrations/linkedin/callback",
      "POST /integrations/linkedin/callback",
      "GET /p/:shareId",
      "GET /p/:shareId/mentions.json",
      "GET /p/:shareId/analytics.json",
      "GET /assets/dashboard.css",
      "GET /assets/dashboard.js",
    ]);
  });
});
