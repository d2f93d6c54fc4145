import { runGateway } from "./run-gateway";

// The `gateway` deployable: the edge serving the REST surface.
void runGateway("rest").catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
