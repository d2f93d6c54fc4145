import { createServer, type RequestListener } from "node:http";
import { type BaseConfig, type Clock, type Logger, openServiceStore, systemClock } from "@earshot/platform";
import { type BackendAddresses, connectBackends } from "./backends";
import { OPERATIONS } from "./catalog";
import { createGatewayApp } from "./gateway-app";
import { apiKeyVerifier, createCredentialVerifier } from "./pipeline/credentials";
import { createPipeline } from "./pipeline/execute";
import { IdempotencyStore } from "./pipeline/idempotency";
import { RateLimiter } from "./pipeline/rate-limit";

export interface StartedGateway {
  url: string;
  port: number;
  /** Stop accepting connections, finish in-flight requests (up to drainMs), close channels and the store. */
  stop(drainMs: number): Promise<void>;
}

export interface GatewayOptions {
  host: string;
  port: number;
  addresses: BackendAddresses;
  logger: Logger;
  /** Store settings: the edge keeps idempotency records and rate-limit counters in its own store. */
  config: BaseConfig;
  publicUrl?: string;
  rateLimitPerMinute: number;
  credentialCacheMs: number;
  clock?: Clock;
  /** REST and MCP by default (the all-in-one); the two deployables serve one each. */
  surfaces?: { rest: boolean; mcp: boolean };
  /** Names the edge's logs and its idempotency/rate-limit store. */
  name?: string;
}

export const startGateway = async (options: GatewayOptions): Promise<StartedGateway> => {
  const clock = options.clock ?? systemClock;
  const backends = connectBackends(options.addresses);
  const store = await openServiceStore(options.config, "edge");
  const idempotency = new IdempotencyStore(store, clock);
  const rateLimiter = new RateLimiter(store, clock, { limit: options.rateLimitPerMinute, windowSeconds: 60 }, { logger: options.logger });
  await Promise.all([idempotency.ensureIndexes(), rateLimiter.ensureIndexes()]);
  let draining = false;
  // The public URL defaults to the bound port, known only after listening, so the app is built after.
  let handler: RequestListener | undefined;
  const server = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = ["0.0.0.0", "::", "127.0.0.1"].includes(options.host) ? "localhost" : options.host;
  const url = (options.publicUrl ?? `http://${host}:${port}`).replace(/\/+$/, "");
  const pipeline = createPipeline({
    backends,
    verifier: createCredentialVerifier([apiKeyVerifier(backends)], { cacheMs: options.credentialCacheMs }),
    rateLimiter,
    idempotency,
    clock,
    logger: options.logger,
    publicUrl: url,
  });
  handler = createGatewayApp({
    backends,
    pipeline,
    operations: OPERATIONS,
    logger: options.logger,
    publicUrl: url,
    isDraining: () => draining,
    surfaces: options.surfaces ?? { rest: true, mcp: true },
  });
  // Keep-alive sockets outliving a drain would hold the process open.
  server.keepAliveTimeout = 5_000;
  options.logger.info({ url, port }, "gateway listening");
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    stop: (drainMs) =>
      (stopped ??= (async () => {
        draining = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        timer.unref();
        await closed;
        clearTimeout(timer);
        backends.close();
        await rateLimiter.close();
        await store.close();
      })()),
  };
};
