import type { AddressInfo } from "node:net";
import { DomainError, silentLogger } from "@earshot/platform";
import express from "express";
import type { Pipeline } from "../pipeline/execute";
import { mcpRouter } from "./mcp-route";

// The /mcp frame in front of JSON-RPC: how authentication outcomes become HTTP answers.

const open: Array<import("node:http").Server> = [];
afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const serve = async (authenticate: Pipeline["authenticate"]) => {
  const app = express();
  app.use(mcpRouter({ operations: [], pipeline: { authenticate } as Pipeline, logger: silentLogger(), resource: "http://127.0.0.1/mcp", resourceMetadataUrl: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp" }));
  const server = app.listen(0, "127.0.0.1");
  open.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const post = () =>
    fetch(url, { method: "POST", headers: { Authorization: "Bearer svc_sk_x", "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  return { post };
};

describe("MCP authentication failures", () => {
  it("answers 503 unavailable without a token challenge when authentication fails for a reason other than the credential", async () => {
    const s = await serve(async () => {
      throw new Error("connection reset");
    });
    const res = await s.post();
    expect(res.status).toBe(503);
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect(await res.json()).toMatchObject({ code: "unavailable" });
  });

  it("answers 401 invalid_token for a refused credential", async () => {
    const s = await serve(async () => {
      throw new DomainError("unauthorized", "bad key");
    });
    const res = await s.post();
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});
