import { runServiceMain } from "@earshot/platform";
import { keywordService } from "./service";

void runServiceMain(keywordService).catch((err: unknown) => {
  process.stderr.write(`keyword service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
