import { createServer, type IncomingMessage, type Server } from "node:http";
import { AddressNotAllowedError, guardedFetch, guardedRequest, PlainHttpError, resolvePublicAddresses, systemResolver, UnresolvableHostError } from "./guarded-fetch";

const listen = async (handler: (req: IncomingMessage, res: import("node:http").ServerResponse) => void) => {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { server, port, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

describe("guarded fetch", () => {
  it("refuses a host when any resolved address is not public, before connecting", async () => {
    const s = await listen((_req, res) => res.end("{}"));
    try {
      const resolve = async () => ["93.184.216.34", "127.0.0.1"];
      await expect(guardedFetch(`http://mixed.example:${s.port}/`, { resolve })).rejects.toBeInstanceOf(AddressNotAllowedError);
      await expect(guardedFetch(`http://[::ffff:127.0.0.1]:${s.port}/`)).rejects.toThrow(/IPv4-mapped loopback/);
      await expect(guardedFetch(`http://2130706433:${s.port}/`)).rejects.toThrow(/loopback/);
      expect(s.requests).toHaveLength(0);
    } finally {
      await s.close();
    }
  });

  it("connects to the address it checked, with the hostname in Host, without resolving again", async () => {
    const s = await listen((_req, res) => res.end('{"ok":true}'));
    try {
      let lookups = 0;
      const resolve = async (host: string) => {
        lookups += 1;
        expect(host).toBe("pinned.invalid");
        return ["127.0.0.1"];
      };
      // pinned.invalid does not exist in DNS: the request can only arrive if the checked address is used.
      const res = await guardedFetch(`http://pinned.invalid:${s.port}/doc.json`, { resolve, allowPrivateNetworks: true });
      expect(res).toMatchObject({ status: 200, text: '{"ok":true}' });
      expect(lookups).toBe(1);
      expect(s.requests[0]?.headers.host).toBe(`pinned.invalid:${s.port}`);
    } finally {
      await s.close();
    }
  });

  it("reuses a connection to the same checked address with keepAlive, and opens one per request without", async () => {
    const s = await listen((_req, res) => res.end("{}"));
    let connections = 0;
    s.server.on("connection", () => (connections += 1));
    try {
      const url = `http://127.0.0.1:${s.port}/`;
      for (let i = 0; i < 6; i++) await guardedRequest(url, { allowPrivateNetworks: true, keepAlive: true, method: "POST", body: "{}" });
      // (undici may open a second one while it hands the first back after a body is read)
      const pooled = connections;
      expect(pooled).toBeLessThanOrEqual(2);
      for (let i = 0; i < 2; i++) await guardedRequest(url, { allowPrivateNetworks: true });
      expect(connections).toBe(pooled + 2);
      // Each request still checks the address: a private one is refused before any connection is reused.
      await expect(guardedRequest(url, { keepAlive: true })).rejects.toBeInstanceOf(AddressNotAllowedError);
      expect(s.requests).toHaveLength(8);
    } finally {
      s.server.closeAllConnections();
      await s.close();
    }
  });

  it("does not follow redirects and stops reading past the size cap", async () => {
    const s = await listen((req, res) => {
      if (req.url === "/redirect") {
        res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" }).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write("x".repeat(40_000));
      res.end("x".repeat(40_000));
    });
    try {
      const options = { resolve: async () => ["127.0.0.1"], allowPrivateNetworks: true, maxBytes: 64 * 1024 };
      await expect(guardedFetch(`http://local.invalid:${s.port}/redirect`, options)).rejects.toThrow(/redirects are not followed/);
      await expect(guardedFetch(`http://local.invalid:${s.port}/big`, options)).rejects.toThrow(/larger than 65536 bytes/);
      expect(s.requests).toHaveLength(2);
    } finally {
      await s.close();
    }
  });

  it("gives up on a server that does not answer within the timeout", async () => {
    const s = await listen(() => undefined);
    try {
      await expect(guardedFetch(`http://slow.invalid:${s.port}/`, { resolve: async () => ["127.0.0.1"], allowPrivateNetworks: true, timeoutMs: 200 })).rejects.toThrow();
    } finally {
      s.server.closeAllConnections();
      await s.close();
    }
  });

  it("checks every address a name resolves to and reports them normalised", async () => {
    await expect(resolvePublicAddresses("multi.example", { resolve: async () => ["2606:4700:0:0:0:0:0:1111", "8.8.8.8"] })).resolves.toEqual(["2606:4700::1111", "8.8.8.8"]);
    await expect(resolvePublicAddresses("nothing.example", { resolve: async () => [] })).rejects.toThrow(/no addresses/);
    await expect(resolvePublicAddresses("meta.example", { resolve: async () => ["169.254.169.254"] })).rejects.toThrow(/link-local/);
  });

  it("says a host does not resolve as its own error, and a .invalid name never does, without asking the network", async () => {
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND gone.example"), { code: "ENOTFOUND" });
    const gone = resolvePublicAddresses("gone.example", { resolve: async () => Promise.reject(notFound) });
    await expect(gone).rejects.toBeInstanceOf(UnresolvableHostError);
    await expect(gone).rejects.toMatchObject({ hostname: "gone.example", code: "ENOTFOUND" });
    await expect(systemResolver("hooks.example.invalid")).rejects.toMatchObject({ name: "UnresolvableHostError", code: "ENOTFOUND" });
    await expect(resolvePublicAddresses("hooks.example.invalid", { allowPrivateNetworks: true })).rejects.toBeInstanceOf(UnresolvableHostError);
  });

  it("sends plain http only to non-public addresses: a public one is refused even where private networks are allowed", async () => {
    const s = await listen((_req, res) => res.end("ok"));
    try {
      const resolve = async (host: string) => (host === "public.example" ? ["93.184.216.34"] : ["127.0.0.1"]);
      const toPublic = guardedRequest(`http://public.example:${s.port}/`, { resolve, allowPrivateNetworks: true });
      await expect(toPublic).rejects.toBeInstanceOf(PlainHttpError);
      await expect(toPublic).rejects.toMatchObject({ hostname: "public.example", address: "93.184.216.34" });
      await expect(guardedRequest(`http://public.example:${s.port}/`, { resolve })).rejects.toBeInstanceOf(PlainHttpError);
      expect(s.requests).toHaveLength(0);
      await expect(guardedRequest(`http://receiver.local:${s.port}/`, { resolve, allowPrivateNetworks: true, method: "POST", body: "{}" })).resolves.toMatchObject({ status: 200, text: "ok" });
    } finally {
      s.server.closeAllConnections();
      await s.close();
    }
  });
});
