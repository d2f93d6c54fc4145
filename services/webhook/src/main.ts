import { runServiceMain } from "@earshot/platform";
import { webhookService } from "./service";

void runServiceMain(webhookService).catch((err: unknown) => {
  process.stderr.write(`webhook service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
