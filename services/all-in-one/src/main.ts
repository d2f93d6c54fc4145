import { createLogger, onShutdownSignal } from "@earshot/platform";
import { startAllInOne } from "./all-in-one";
import { loadAllInOneConfig } from "./config";

const main = async () => {
  const config = loadAllInOneConfig();
  const logger = createLogger("earshot", { level: config.LOG_LEVEL });
  const running = await startAllInOne(config, logger);
  onShutdownSignal(logger, running.stop, 10_000);
  const lines = [
    "",
    `Earshot is running at ${running.url}  (API: ${running.url}/api/v1, health: ${running.url}/readyz)`,
    `  data: ${running.dataDir}`,
    ...running.services.map((s) => `  ${s.name.padEnd(8)} gRPC ${s.address}`),
    `  docs: ${running.url}/docs`,
    "",
  ];
  if (running.bootstrap) {
    lines.push(
      `First start: created the owner ${running.bootstrap.email} and an API key with every scope (shown once):`,
      "",
      `  ${running.bootstrap.apiKey}`,
      "",
      `The key and the owner's password are in ${running.dataDir}/bootstrap.json (readable only by you). Try:`,
      `  curl -H "Authorization: Bearer $(node -p 'require(\"${running.dataDir}/bootstrap.json\").apiKey')" ${running.url}/api/v1/projects`,
      "",
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
};

void main().catch((err: unknown) => {
  process.stderr.write(`Earshot failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
