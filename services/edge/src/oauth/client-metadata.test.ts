import { createServer, type Server } from "node:net";
import { createClientMetadataFetcher } from "./client-metadata";

// A TCP listener on loopback that only counts connections: the guard must refuse before opening one.
const countingListener = async (): Promise<{ server: Server; port: number; connections: () => number }> => {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0, connections: () => connections };
};

describe("client metadata documents", () => {
  it("refuses to fetch a client_id that is not https, carries credentials, or resolves to a private address", async () => {
    const fetcher = createClientMetadataFetcher({ resolve: async (host) => (host === "metadata.internal" ? ["10.0.0.5"] : ["127.0.0.1"]) });
    await expect(fetcher.fetch("http://client.example/meta.json")).rejects.toThrow(/https/);
    await expect(fetcher.fetch("https://user:pw@client.example/meta.json")).rejects.toThrow(/credentials/);
    await expect(fetcher.fetch("https://metadata.internal/client.json")).rejects.toThrow(/non-public/);
    await expect(fetcher.fetch("https://localhost/client.json")).rejects.toThrow(/non-public/);
  });

  it("refuses IPv6 literals that lead to loopback, without opening a connection", async () => {
    const listener = await countingListener();
    try {
      const fetcher = createClientMetadataFetcher();
      for (const host of ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::1]"]) {
        await expect(fetcher.fetch(`https://${host}:${listener.port}/client.json`)).rejects.toThrow(/non-public/);
      }
      expect(listener.connections()).toBe(0);
    } finally {
      listener.server.close();
    }
  });

  it("refuses a hostname that resolves to loopback before connecting", async () => {
    const listener = await countingListener();
    try {
      const asked: string[] = [];
      const fetcher = createClientMetadataFetcher({
        resolve: async (host) => {
          asked.push(host);
          return ["93.184.216.34", "::ffff:127.0.0.1"];
        },
      });
      await expect(fetcher.fetch(`https://rebind.example:${listener.port}/client.json`)).rejects.toThrow(/non-public address \(IPv4-mapped loopback/);
      expect(asked).toEqual(["rebind.example"]);
      expect(listener.connections()).toBe(0);
    } finally {
      listener.server.close();
    }
  });
});
