import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody, sendJson } from "./http";
import { type PlatformSimulator, type PlatformSimulatorFactory, SIM_PLATFORMS, type SimPlatform } from "./platform-simulator";
import { type PublishInput, SimWorld, type WorldOptions } from "./world";

// One HTTP server for every simulated platform, each under its own prefixes (standing for the platform's
// base URLs), plus a control API under /_sim that tests and demos use:
//   POST /_sim/posts      {platform, text, ...}            publish a post now; answers the post's ids
//   POST /_sim/faults     {platform, status, count?, retryAfterSeconds?, matching?, reason?}
//                                                          next requests (naming `matching`) answer status
//   POST /_sim/malformed  {platform, count?}               next answers are malformed
//   GET  /_sim/requests?platform=x                         the last 10,000 requests received (method, path,
//                                                          query, headers) and `total`, every request counted
//   POST /_sim/reset                                       forget posts, faults, logs

export interface SimulatorOptions extends WorldOptions {
  host?: string;
  port?: number;
  /** Which platforms to serve (default all six). */
  platforms?: readonly SimPlatform[];
  /** Platform simulators by platform; the package's own by default. */
  factories: Partial<Record<SimPlatform, PlatformSimulatorFactory>>;
}

export interface SimulatorServer {
  origin: string;
  world: SimWorld;
  simulators: PlatformSimulator[];
  close(): Promise<void>;
}

const CONTROL = "/_sim";

const handleControl = async (world: SimWorld, simulators: PlatformSimulator[], req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
  const path = url.pathname.slice(CONTROL.length);
  const served = new Set(simulators.map((s) => s.platform));
  const platformOf = (value: unknown): SimPlatform | undefined => (typeof value === "string" && served.has(value as SimPlatform) ? (value as SimPlatform) : undefined);
  if (req.method === "GET" && path === "/requests") {
    const platform = platformOf(url.searchParams.get("platform"));
    if (!platform) return sendJson(res, 400, { error: `platform must be one of ${[...served].join(", ")}` });
    return sendJson(res, 200, { requests: world.requests(platform), total: world.requestCount(platform) });
  }
  if (req.method !== "POST") return sendJson(res, 405, { error: "method not allowed" });
  let body: Record<string, unknown>;
  try {
    const raw = await readBody(req);
    body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object");
  } catch {
    return sendJson(res, 400, { error: "body must be a JSON object" });
  }
  if (path === "/reset") {
    world.reset();
    return sendJson(res, 200, { ok: true });
  }
  const platform = platformOf(body.platform);
  if (!platform) return sendJson(res, 400, { error: `platform must be one of ${[...served].join(", ")}` });
  switch (path) {
    case "/posts": {
      if (typeof body.text !== "string" || !body.text) return sendJson(res, 400, { error: "text is required" });
      const { platform: _p, ...input } = body;
      const post = world.publish(platform, input as unknown as PublishInput);
      return sendJson(res, 201, { key: post.key.toString(), createdAtMs: post.createdAtMs });
    }
    case "/faults": {
      const status = Number(body.status);
      if (!Number.isInteger(status) || status < 400 || status > 599) return sendJson(res, 400, { error: "status must be an HTTP error status" });
      world.fail(platform, {
        status,
        count: body.count === undefined ? 1 : Number(body.count),
        retryAfterSeconds: body.retryAfterSeconds === undefined ? 60 : Number(body.retryAfterSeconds),
        ...(typeof body.matching === "string" && body.matching ? { matching: body.matching } : {}),
        ...(typeof body.reason === "string" && body.reason ? { reason: body.reason } : {}),
      });
      return sendJson(res, 200, { ok: true });
    }
    case "/malformed":
      world.malform(platform, body.count === undefined ? 1 : Number(body.count));
      return sendJson(res, 200, { ok: true });
    default:
      return sendJson(res, 404, { error: "unknown control path" });
  }
};

export const startSimulatorServer = async (options: SimulatorOptions): Promise<SimulatorServer> => {
  const world = new SimWorld(options);
  const simulators = (options.platforms ?? SIM_PLATFORMS).flatMap((p) => {
    const factory = options.factories[p];
    return factory ? [factory(world)] : [];
  });
  // Longest prefix first, so `/reddit-oauth` never loses to a shorter one.
  const routes = simulators.flatMap((s) => Object.keys(s.prefixes).map((prefix) => ({ prefix, sim: s }))).sort((a, b) => b.prefix.length - a.prefix.length);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://simulator.local");
      if (url.pathname === CONTROL || url.pathname.startsWith(`${CONTROL}/`)) return handleControl(world, simulators, req, res, url);
      const route = routes.find((r) => url.pathname === r.prefix || url.pathname.startsWith(`${r.prefix}/`));
      if (!route) return sendJson(res, 404, { error: "no simulated platform here" });
      const body = req.method === "GET" || req.method === "HEAD" ? "" : await readBody(req);
      const path = url.pathname.slice(route.prefix.length) || "/";
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
      world.log(route.sim.platform, { method: req.method ?? "GET", path, query: Object.fromEntries(url.searchParams), headers, body });
      await route.sim.handle({ req, res, url, path, body }, route.prefix);
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
      else res.destroy();
    });
  });
  // WebSockets (Bluesky's Jetstream) are handed to the simulator whose prefix they name.
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://simulator.local");
    const route = routes.find((r) => url.pathname.startsWith(`${r.prefix}/`));
    if (!route?.sim.upgrade) return void socket.destroy();
    route.sim.upgrade(req, socket, head, url.pathname.slice(route.prefix.length));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== "0.0.0.0" ? options.host : "127.0.0.1";
  return {
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    world,
    simulators,
    close: () =>
      new Promise<void>((resolve) => {
        for (const sim of simulators) sim.close?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
