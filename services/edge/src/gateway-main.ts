import { createLogger, onShutdownSignal } from "@earshot/platform";
import { loadGatewayConfig } from "./config";
import { startGateway } from "./gateway";

const main = async () => {
  const config = loadGatewayConfig();
  const logger = createLogger("gateway", { level: config.LOG_LEVEL });
  const gateway = await startGateway({
    host: config.HOST,
    port: config.PORT,
    addresses: { account: config.ACCOUNT_GRPC_ADDR, project: config.PROJECT_GRPC_ADDR },
    logger,
    config,
    publicUrl: config.EARSHOT_PUBLIC_URL,
    rateLimitPerMinute: config.EARSHOT_RATE_LIMIT_PER_MINUTE,
    credentialCacheMs: config.EARSHOT_CREDENTIAL_CACHE_MS,
  });
  onShutdownSignal(logger, () => gateway.stop(config.EARSHOT_DRAIN_MS));
};

void main().catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
