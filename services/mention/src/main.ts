import { runServiceMain } from "@earshot/platform";
import { mentionService } from "./service";

void runServiceMain(mentionService).catch((err: unknown) => {
  process.stderr.write(`mention service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
