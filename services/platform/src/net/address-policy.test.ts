import { classifyAddress, normalizeAddress } from "./address-policy";

describe("address policy", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["0.0.0.0", "0.0.0.0/8"],
    ["0.1.2.3", "0.0.0.0/8"],
    ["10.1.2.3", "RFC 1918"],
    ["172.16.0.1", "RFC 1918"],
    ["172.31.255.255", "RFC 1918"],
    ["192.168.1.1", "RFC 1918"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.254", "CGNAT"],
    ["169.254.169.254", "link-local"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["198.18.0.1", "benchmarking"],
    ["192.0.2.10", "documentation"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback"],
    ["::FFFF:7F00:0001", "IPv4-mapped loopback"],
    ["::ffff:169.254.169.254", "IPv4-mapped link-local"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:8.8.8.8", "IPv4-mapped (8.8.8.8)"],
    ["::127.0.0.1", "IPv4-compatible loopback"],
    ["::7f00:1", "IPv4-compatible loopback"],
    ["64:ff9b::127.0.0.1", "NAT64 loopback"],
    ["64:ff9b::a9fe:a9fe", "NAT64 link-local"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["2002:7f00:1::1", "6to4 loopback"],
    ["2002:a00:1::", "6to4 private"],
    ["2001:0:4136:e378::1", "Teredo"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["100::1", "discard"],
    ["4000::1", "not global unicast"],
  ])("refuses %s (%s)", (ip, reason) => {
    const verdict = classifyAddress(ip);
    expect(verdict.public).toBe(false);
    expect(verdict.reason).toContain(reason);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "169.253.255.255", "2606:4700::1111", "2a00:1450:4007:80e::200e"])("allows the public address %s", (ip) => {
    expect(classifyAddress(ip)).toEqual({ address: normalizeAddress(ip), public: true });
  });

  it("normalises addresses to one spelling", () => {
    expect(normalizeAddress("::FFFF:127.0.0.1")).toBe("::ffff:7f00:1");
    expect(normalizeAddress("[2001:DB8:0:0:0:0:0:1]")).toBe("2001:db8::1");
    expect(normalizeAddress("0:0:0:0:0:0:0:1")).toBe("::1");
    expect(normalizeAddress("example.com")).toBeUndefined();
    expect(classifyAddress("example.com")).toMatchObject({ public: false, reason: "not an IP address" });
  });

  it("sees through decimal, hex and octal IPv4 spellings once a URL has normalised the host", () => {
    for (const host of ["2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.1", "0x7f000001"]) {
      const hostname = new URL(`https://${host}/x`).hostname;
      expect({ host, verdict: classifyAddress(hostname) }).toEqual({ host, verdict: { address: "127.0.0.1", public: false, reason: "loopback" } });
    }
    expect(classifyAddress(new URL("https://[::ffff:127.0.0.1]/").hostname)).toMatchObject({ public: false, reason: expect.stringContaining("IPv4-mapped loopback") });
  });
});
