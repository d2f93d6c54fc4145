import { isLoopbackAddress, loopbackHostNames } from "./host-gate";

// Which Host names a loopback-bound /mcp answers to (the rest of the gate is exercised over HTTP by the
// all-in-one's MCP hardening tests).

describe("the Host names of a loopback-bound server", () => {
  it("are the loopback names with the port, and the public URL's host when one is set", () => {
    expect(loopbackHostNames(8080)).toEqual(["localhost:8080", "127.0.0.1:8080", "[::1]:8080"]);
    expect(loopbackHostNames(8080, "https://earshot.example")).toEqual(["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "earshot.example"]);
    expect(loopbackHostNames(8080, "https://earshot.example:8443/")).toContain("earshot.example:8443");
  });

  it("are checked only when the listening address is loopback", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "localhost"]) expect({ host, loopback: isLoopbackAddress(host) }).toEqual({ host, loopback: true });
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "earshot.internal"]) expect({ host, loopback: isLoopbackAddress(host) }).toEqual({ host, loopback: false });
  });
});
