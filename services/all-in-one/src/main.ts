import { createLogger, onShutdownSignal } from "@earshot/platform";
import { startAllInOne } from "./all-in-one";
import { startupBanner } from "./banner";
import { loadAllInOneConfig } from "./config";
import { simulateMissingSources } from "./simulated-sources";

const main = async () => {
  const configured = loadAllInOneConfig();
  const logger = createLogger("earshot", { level: configured.LOG_LEVEL });
  const simulated = await simulateMissingSources(configured, logger);
  const running = await startAllInOne(simulated.config, logger).catch(async (err: unknown) => {
    await simulated.stop();
    throw err;
  });
  onShutdownSignal(
    logger,
    async () => {
      await running.stop();
      await simulated.stop();
    },
    10_000,
  );
  process.stdout.write(startupBanner(running, simulated.simulators));
};

void main().catch((err: unknown) => {
  process.stderr.write(`Earshot failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
