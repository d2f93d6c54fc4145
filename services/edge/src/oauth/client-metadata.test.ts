import { createClientMetadataFetcher, isPrivateAddress } from "./client-metadata";

describe("client metadata documents", () => {
  it("treats loopback, private, link-local and mapped addresses as private", () => {
    for (const ip of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fd00::1", "fe80::1", "::ffff:127.0.0.1"]) {
      expect({ ip, private: isPrivateAddress(ip) }).toEqual({ ip, private: true });
    }
    for (const ip of ["93.184.216.34", "2606:4700::1111", "172.32.0.1"]) expect({ ip, private: isPrivateAddress(ip) }).toEqual({ ip, private: false });
  });

  it("refuses to fetch a client_id that is not https or that resolves to a private address", async () => {
    const fetcher = createClientMetadataFetcher({ resolve: async (host) => (host === "metadata.internal" ? ["10.0.0.5"] : ["127.0.0.1"]) });
    await expect(fetcher.fetch("http://client.example/meta.json")).rejects.toThrow(/https/);
    await expect(fetcher.fetch("https://user:pw@client.example/meta.json")).rejects.toThrow(/credentials/);
    await expect(fetcher.fetch("https://metadata.internal/client.json")).rejects.toThrow(/non-public/);
    await expect(fetcher.fetch("https://localhost/client.json")).rejects.toThrow(/non-public/);
  });
});
