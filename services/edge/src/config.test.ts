import { trustProxySetting } from "./config";

describe("EARSHOT_TRUST_PROXY", () => {
  it("trusts no proxy unless told", () => {
    expect(trustProxySetting.parse(undefined)).toBe(false);
    expect(trustProxySetting.parse("none")).toBe(false);
    expect(trustProxySetting.parse("")).toBe(false);
  });

  it("takes a hop count or the proxies' addresses and subnets", () => {
    expect(trustProxySetting.parse("1")).toBe(1);
    expect(trustProxySetting.parse("10.0.0.0/8,  192.168.1.7")).toBe("10.0.0.0/8, 192.168.1.7");
    expect(trustProxySetting.parse("loopback, uniquelocal")).toBe("loopback, uniquelocal");
  });

  it("refuses to trust every peer or a value it cannot read", () => {
    for (const bad of ["true", "*", "all", "proxy.example.com", "1e3"]) expect(trustProxySetting.safeParse(bad).success).toBe(false);
  });
});
