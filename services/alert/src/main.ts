import { runServiceMain } from "@earshot/platform";
import { alertService } from "./service";

void runServiceMain(alertService).catch((err: unknown) => {
  process.stderr.write(`alert service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
