import { runServiceMain } from "@earshot/platform";
import { integrationService } from "./service";

void runServiceMain(integrationService).catch((err: unknown) => {
  process.stderr.write(`integration service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
