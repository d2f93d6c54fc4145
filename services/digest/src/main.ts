import { runServiceMain } from "@earshot/platform";
import { digestService } from "./service";

void runServiceMain(digestService).catch((err: unknown) => {
  process.stderr.write(`digest service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
