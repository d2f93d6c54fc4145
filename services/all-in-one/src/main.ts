import { createLogger, onShutdownSignal } from "@earshot/platform";
import { startAllInOne } from "./all-in-one";
import { startupBanner } from "./banner";
import { loadAllInOneConfig } from "./config";

const main = async () => {
  const config = loadAllInOneConfig();
  const logger = createLogger("earshot", { level: config.LOG_LEVEL });
  const running = await startAllInOne(config, logger);
  onShutdownSignal(logger, running.stop, 10_000);
  process.stdout.write(startupBanner(running));
};

void main().catch((err: unknown) => {
  process.stderr.write(`Earshot failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
