// The baseline of the API benchmarks: a bare express app serving a fixed JSON body from memory at the
// same paths, so the difference to Earshot is what the gateway, auth, rate limit and the service call cost.
"use strict";
const express = require("express");

const body = process.env.BARE_BODY ?? "{}";
const app = express();
const send = (_req, res) => {
  res.type("application/json").send(body);
};
app.get("/api/v1/projects/:projectId", send);
app.get("/api/v1/keywords", send);
app.get("/api/v1/mentions", send);
// The MCP benchmark's baseline for a tools/call: the same body, answered to a POST.
app.post("/mcp", send);
const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
