import { existsSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { createInProcessBus, type EventBus, silentLogger } from "@earshot/platform";
import { serviceAddresses } from "@earshot/registry";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { type GatewayOptions, startGateway, type StartedGateway } from "./gateway";

// Start-up of the gateway process itself: the port is bound before the app is ready.

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

/** A gateway on a free loopback port whose services are nowhere: start-up and the HTTP frame need none of them. */
const gatewayOptions = (dataDir: string): GatewayOptions => ({
  host: "127.0.0.1",
  port: 0,
  addresses: serviceAddresses(() => "127.0.0.1:1"),
  logger: silentLogger(),
  config: { EARSHOT_DATA_DIR: dataDir, LOG_LEVEL: "silent", MONGO_DB_PREFIX: "earshot", KAFKA_CLIENT_ID: "earshot", EARSHOT_MAIL_FROM: "x <x@example.com>", EARSHOT_DRAIN_MS: 1000, EARSHOT_STORE_SYNC: "normal", EARSHOT_STORE_CACHE_MB: 2, EARSHOT_OUTBOX_RETENTION_HOURS: 168 },
  rateLimitPerMinute: 100,
  credentialCacheMs: 0,
  oauthKeysFile: join(dataDir, "keys.json"),
  oauthRateLimitPerMinute: 0,
  trustProxy: false,
});

describe("gateway start-up", () => {
  it("answers 503 problem+json with Retry-After on every surface while start-up is held, then serves", async () => {
    const tmp = await makeTempDir("earshot-gateway-");
    const listening = deferred<{ url: string; port: number }>();
    const release = deferred<void>();
    let gateway: StartedGateway | undefined;
    try {
      // Nothing listens at the services' addresses: start-up and the early answers must not need them.
      const started = startGateway({
        ...gatewayOptions(tmp.dir),
        beforeReady: (l) => {
          listening.resolve(l);
          return release.promise;
        },
      });
      const { url } = await listening.promise;
      const early = [
        ["GET", "/api/v1/projects"],
        ["POST", "/mcp"],
        ["GET", "/readyz"],
        ["GET", "/docs"],
        ["POST", "/oauth/token"],
      ] as const;
      for (const [method, path] of early) {
        const res = await fetch(`${url}${path}`, { method, ...(method === "POST" ? { body: "{}", headers: { "Content-Type": "application/json" } } : {}) });
        expect({ path, status: res.status, retryAfter: res.headers.get("retry-after") }).toEqual({ path, status: 503, retryAfter: "1" });
        expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(await res.json()).toMatchObject({ status: 503, code: "unavailable", instance: path });
      }
      release.resolve();
      gateway = await started;
      expect(gateway.url).toBe(url);
      const ready = await fetch(`${url}/healthz`);
      expect(ready.status).toBe(200);
      const docs = await fetch(`${url}/docs`);
      expect(docs.status).toBe(200);
    } finally {
      release.resolve();
      await gateway?.stop(1000);
      await tmp.cleanup();
    }
  });

  it("closes its event subscription and its store when the port is already in use", async () => {
    const tmp = await makeTempDir("earshot-gateway-");
    const occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, "127.0.0.1", resolve));
    const bus = createInProcessBus();
    let subscribed = 0;
    const watched: EventBus = Object.assign(Object.create(bus) as EventBus, {
      subscribe: async (...args: Parameters<EventBus["subscribe"]>) => {
        const sub = await bus.subscribe(...args);
        subscribed += 1;
        return { ...sub, stop: async () => ((subscribed -= 1), sub.stop()) };
      },
    });
    try {
      await expect(
        startGateway({ ...gatewayOptions(tmp.dir), port: (occupant.address() as AddressInfo).port, bus: watched }),
      ).rejects.toMatchObject({ code: "EADDRINUSE" });
      expect(subscribed).toBe(0);
      // The embedded store holds a lock file in its directory while open.
      expect(existsSync(join(tmp.dir, "edge", ".lock"))).toBe(false);
    } finally {
      await new Promise((resolve) => occupant.close(resolve));
      await bus.close();
      await tmp.cleanup();
    }
  });

  it("reuses a keep-alive connection after an idle pause longer than the old 5 s, and closes it at once when it drains", async () => {
    const tmp = await makeTempDir("earshot-gateway-");
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let gateway: StartedGateway | undefined;
    try {
      gateway = await startGateway(gatewayOptions(tmp.dir));
      const get = () =>
        new Promise<{ status: number; reused: boolean; socket: Socket }>((resolve, reject) => {
          const req = request(`${gateway!.url}/healthz`, { agent }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, socket: req.socket as Socket }));
          });
          req.on("error", reject);
          req.end();
        });
      const first = await get();
      expect(first).toMatchObject({ status: 200, reused: false });
      // The pause itself is what is tested: a proxy or pooled client idle this long reuses its connection.
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      const second = await get();
      expect(second).toMatchObject({ status: 200, reused: true });
      expect(second.socket).toBe(first.socket);
      // Draining does not wait for the idle connection's keep-alive to run out.
      const closed = new Promise((resolve) => second.socket.once("close", resolve));
      await gateway.stop(60_000);
      gateway = undefined;
      await closed;
    } finally {
      agent.destroy();
      await gateway?.stop(1000);
      await tmp.cleanup();
    }
  }, 15_000);
});
