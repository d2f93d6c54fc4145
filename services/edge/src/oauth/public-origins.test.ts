import { parseOriginList, publicOrigins } from "./public-origins";

const req = (host?: string) => ({ headers: { host } });

describe("public origins", () => {
  it("answers every request with the public URL when one is set, whatever the Host header says", () => {
    const o = publicOrigins({ publicUrl: "https://earshot.example/", defaultOrigin: "https://earshot.example", port: 8080 });
    for (const host of ["127.0.0.1:8080", "localhost:8080", "evil.example", undefined]) expect(o.of(req(host))).toBe("https://earshot.example");
    expect(o.all).toEqual(["https://earshot.example"]);
    expect(o.allowsBrowserOrigin("http://localhost:8080")).toBe(false);
    expect(o.allowsBrowserOrigin("https://earshot.example")).toBe(true);
  });

  it("without a public URL, follows the Host header only among loopback names of the listening port", () => {
    const o = publicOrigins({ defaultOrigin: "http://localhost:8080", port: 8080 });
    expect(o.of(req("127.0.0.1:8080"))).toBe("http://127.0.0.1:8080");
    expect(o.of(req("[::1]:8080"))).toBe("http://[::1]:8080");
    expect(o.of(req("LOCALHOST:8080"))).toBe("http://localhost:8080");
    for (const host of ["127.0.0.1:9999", "evil.example:8080", "127.0.0.2:8080", undefined]) expect(o.of(req(host))).toBe("http://localhost:8080");
    expect([...o.all].sort()).toEqual(["http://127.0.0.1:8080", "http://[::1]:8080", "http://localhost:8080"]);
  });

  it("allows Earshot's own origins and the configured ones as browser origins, and nothing else", () => {
    const o = publicOrigins({ defaultOrigin: "http://localhost:8080", port: 8080, extraAllowedOrigins: parseOriginList("https://ide.example, https://agent.example:8443") });
    for (const ok of ["http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080", "https://ide.example", "https://agent.example:8443"]) expect({ ok, allowed: o.allowsBrowserOrigin(ok) }).toEqual({ ok, allowed: true });
    for (const bad of ["null", "http://localhost:8081", "https://ide.example:444", "http://ide.example", "https://evil.example"]) expect({ bad, allowed: o.allowsBrowserOrigin(bad) }).toEqual({ bad, allowed: false });
  });

  it("refuses a configured value that is not an origin", () => {
    expect(() => parseOriginList("https://ide.example/path")).toThrow(/not an origin/);
    expect(() => parseOriginList("ftp://ide.example")).toThrow(/not an origin/);
    expect(parseOriginList("")).toEqual([]);
  });
});
