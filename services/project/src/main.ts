import { runServiceMain } from "@earshot/platform";
import { projectService } from "./service";

void runServiceMain(projectService).catch((err: unknown) => {
  process.stderr.write(`project service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
