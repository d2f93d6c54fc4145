import type { Server } from "node:http";
import type { Logger } from "@earshot/platform";
import { type BackendAddresses, connectBackends } from "./backends";
import { createGatewayApp } from "./gateway-app";

export interface StartedGateway {
  url: string;
  port: number;
  /** Stop accepting connections, finish in-flight requests (up to drainMs), close backend channels. */
  stop(drainMs: number): Promise<void>;
}

export interface GatewayOptions {
  host: string;
  port: number;
  addresses: BackendAddresses;
  logger: Logger;
}

export const startGateway = async (options: GatewayOptions): Promise<StartedGateway> => {
  const backends = connectBackends(options.addresses);
  let draining = false;
  const app = createGatewayApp({ backends, logger: options.logger, isDraining: () => draining });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port, options.host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  // Keep-alive sockets outliving a drain would hold the process open.
  server.keepAliveTimeout = 5_000;
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host;
  const url = `http://${host}:${port}`;
  options.logger.info({ url }, "gateway listening");
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
      })()),
  };
};
