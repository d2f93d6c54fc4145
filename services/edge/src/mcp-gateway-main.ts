import { runGateway } from "./run-gateway";

// The `mcp-gateway` deployable: the same edge, serving the MCP surface.
void runGateway("mcp").catch((err: unknown) => {
  process.stderr.write(`mcp-gateway failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
