import { runServiceMain } from "@earshot/platform";
import { integrationSettingsShape } from "./config";
import { integrationService } from "./service";

void runServiceMain(integrationService, integrationSettingsShape).catch((err: unknown) => {
  process.stderr.write(`integration service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
