import { addressKeyOf } from "./address-key";

describe("failed-authentication address keys", () => {
  it("counts every address of one IPv6 /64 as one client", () => {
    expect(addressKeyOf("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(addressKeyOf("2001:db8:1:2:ffff:1234:5678:9abc")).toBe("2001:db8:1:2::/64");
    expect(addressKeyOf("2001:DB8:1:2:0:0:0:7")).toBe("2001:db8:1:2::/64");
    expect(addressKeyOf("2001:db8:1:3::1")).not.toBe(addressKeyOf("2001:db8:1:2::1"));
  });

  it("counts an IPv4-mapped address as its IPv4 client", () => {
    expect(addressKeyOf("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(addressKeyOf("::ffff:cb00:7109")).toBe("203.0.113.9");
    expect(addressKeyOf("203.0.113.9")).toBe("203.0.113.9");
  });
});
