import { loadConfig } from "@earshot/platform";
import { addressesFromSettings, CALLABLE_SERVICES, grpcAddrVar } from "@earshot/registry";
import { gatewayConfigSchema, trustProxySetting } from "./config";

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

describe("service addresses", () => {
  it("reads the address of every service with a gRPC API from <NAME>_GRPC_ADDR, defaulting to its Service name and port", () => {
    const config = loadConfig(gatewayConfigSchema, { PROJECT_GRPC_ADDR: "10.0.0.7:6000" });
    expect(addressesFromSettings(config)).toEqual(
      Object.fromEntries(CALLABLE_SERVICES.map((s) => [s.name, s.name === "project" ? "10.0.0.7:6000" : `${s.name}:50051`])),
    );
  });

  it("refuses an address that is not host:port and names the setting", () => {
    for (const s of CALLABLE_SERVICES) {
      const setting = grpcAddrVar(s.name);
      expect(() => loadConfig(gatewayConfigSchema, { [setting]: "no-port" })).toThrow(setting);
    }
  });
});
