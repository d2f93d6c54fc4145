import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

// The metrics port of a gRPC service (EARSHOT_METRICS_PORT): GET /metrics in the Prometheus text format and,
// given probes, GET /healthz and /readyz in plain HTTP. It is a port of its own so that no Service or Ingress
// routing the API ever reaches it. The probes live here rather than on the gRPC port because a kubelet's
// native gRPC probe cannot present a client certificate, which the gRPC port requires under mutual TLS.

export interface MetricsProbes {
  /** Whether the process takes calls: /readyz answers 200 when true, 503 otherwise (starting, draining). */
  ready(): boolean;
}

export interface StartedMetricsServer {
  /** `http://host:port`, the port actually bound (useful with port 0). */
  url: string;
  close(): Promise<void>;
}

const text = (res: ServerResponse, status: number, body: string) => res.writeHead(status, { "content-type": "text/plain", "cache-control": "no-store" }).end(body);

/** `probes`: also answer /healthz (the process is up: always 200) and /readyz (`probes.ready()`). */
export const startMetricsServer = async (registry: Registry, host: string, port: number, probes?: MetricsProbes): Promise<StartedMetricsServer> => {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (probes && req.method === "GET" && path === "/healthz") return void text(res, 200, "ok\n");
    if (probes && req.method === "GET" && path === "/readyz") return void (probes.ready() ? text(res, 200, "ready\n") : text(res, 503, "not ready\n"));
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found.\n");
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(`${(err as Error).message}\n`),
    );
  });
  // A scraper keeps its connection open between scrapes; a drain must not wait for it.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    url: `http://${shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
