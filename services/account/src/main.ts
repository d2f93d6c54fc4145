import { runServiceMain } from "@earshot/platform";
import { accountService } from "./service";

void runServiceMain(accountService).catch((err: unknown) => {
  process.stderr.write(`account service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
