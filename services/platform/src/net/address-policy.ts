import { isIP } from "node:net";

// The one answer to "may Earshot open a connection to this address on a stranger's say-so?" (client
// metadata documents now, webhook endpoints later). Only globally routable unicast addresses may be
// reached. IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64
// 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address they lead to, so ::ffff:127.0.0.1
// and ::ffff:7f00:1 are loopback like 127.0.0.1.

export interface AddressVerdict {
  /** The address in canonical form (IPv4 dotted quad, IPv6 compressed lower case). */
  address: string;
  public: boolean;
  /** Why it is not public, e.g. "loopback", "private (RFC 1918)" or "IPv4-mapped loopback". */
  reason?: string;
}

type Range = [prefix: number[], bits: number, reason: string];

const V4_RANGES: Range[] = [
  [[0, 0, 0, 0], 8, "\"this network\" (0.0.0.0/8)"],
  [[10, 0, 0, 0], 8, "private (RFC 1918)"],
  [[100, 64, 0, 0], 10, "shared address space (CGNAT)"],
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local (cloud metadata)"],
  [[172, 16, 0, 0], 12, "private (RFC 1918)"],
  [[192, 0, 0, 0], 24, "IETF protocol assignments"],
  [[192, 0, 2, 0], 24, "documentation"],
  [[192, 88, 99, 0], 24, "6to4 relay anycast"],
  [[192, 168, 0, 0], 16, "private (RFC 1918)"],
  [[198, 18, 0, 0], 15, "benchmarking"],
  [[198, 51, 100, 0], 24, "documentation"],
  [[203, 0, 113, 0], 24, "documentation"],
  [[224, 0, 0, 0], 4, "multicast"],
  [[255, 255, 255, 255], 32, "broadcast"],
  [[240, 0, 0, 0], 4, "reserved"],
];

const V6_RANGES: Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 128, "unspecified"],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback"],
  [[0x00, 0x64, 0xff, 0x9b, 0, 1], 48, "local-use NAT64"],
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, "discard-only"],
  [[0x20, 0x01, 0x00, 0x00], 32, "Teredo"],
  [[0x20, 0x01, 0x00, 0x02, 0x00, 0x00], 48, "benchmarking"],
  [[0x20, 0x01, 0x00, 0x10], 28, "ORCHID"],
  [[0x20, 0x01, 0x0d, 0xb8], 32, "documentation"],
  [[0xfc], 7, "unique local (ULA)"],
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "site-local"],
  [[0xff], 8, "multicast"],
];

/** IPv6 prefixes whose addresses lead to an embedded IPv4 address, and where it sits (byte offset). */
const V4_CARRIERS: Array<[prefix: number[], bits: number, offset: number, name: string]> = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 12, "IPv4-mapped"],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96, 12, "IPv4-compatible"],
  [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96, 12, "NAT64"],
  [[0x20, 0x02], 16, 2, "6to4"],
];

const inRange = (bytes: number[], prefix: number[], bits: number): boolean => {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
};

const v4Bytes = (ip: string): number[] => ip.split(".").map(Number);

const v6Bytes = (ip: string): number[] => {
  let text = ip;
  // A dotted IPv4 tail (::ffff:127.0.0.1) becomes two hex groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = v4Bytes(tail[1] as string) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const groups = (s: string) => (s ? s.split(":") : []);
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return all.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
};

const formatV4 = (b: number[]) => b.join(".");

const formatV6 = (b: number[]): string => {
  const groups = Array.from({ length: 8 }, (_, i) => (((b[2 * i] ?? 0) << 8) | (b[2 * i + 1] ?? 0)).toString(16));
  // Compress the longest run of zero groups (RFC 5952).
  let best = [-1, 0];
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j += 1;
    if (j - i > (best[1] as number) && j - i > 1) best = [i, j - i];
    i = j;
  }
  const [start, length] = best as [number, number];
  if (start < 0) return groups.join(":");
  return `${groups.slice(0, start).join(":")}::${groups.slice(start + length).join(":")}`;
};

/** The canonical form of an IP address (brackets and zone ids removed), or undefined if it is not one. */
export const normalizeAddress = (input: string): string | undefined => {
  const ip = input.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const kind = isIP(ip);
  if (kind === 4) return formatV4(v4Bytes(ip));
  if (kind === 6) return formatV6(v6Bytes(ip.toLowerCase()));
  return undefined;
};

const classifyV4 = (b: number[]): string | undefined => V4_RANGES.find(([prefix, bits]) => inRange(b, prefix, bits))?.[2];

/** Whether an address is public (globally routable unicast), and if not, why. */
export const classifyAddress = (input: string): AddressVerdict => {
  const address = normalizeAddress(input);
  if (address === undefined) return { address: input, public: false, reason: "not an IP address" };
  if (isIP(address) === 4) {
    const reason = classifyV4(v4Bytes(address));
    return reason ? { address, public: false, reason } : { address, public: true };
  }
  const b = v6Bytes(address);
  // Exact v6 special addresses first (:: and ::1 also sit inside the IPv4-compatible carrier).
  const special = V6_RANGES.find(([prefix, bits]) => inRange(b, prefix, bits));
  if (special) return { address, public: false, reason: special[2] };
  for (const [prefix, bits, offset, name] of V4_CARRIERS) {
    if (!inRange(b, prefix, bits)) continue;
    const v4 = b.slice(offset, offset + 4);
    const reason = classifyV4(v4);
    // A carrier leading to a public IPv4 address is still refused: it reaches that address only
    // through a translator, and nothing here needs to.
    return { address, public: false, reason: reason ? `${name} ${reason} (${formatV4(v4)})` : `${name} (${formatV4(v4)})` };
  }
  // Only 2000::/3 is allocated global unicast.
  if ((b[0] as number) >> 5 !== 1) return { address, public: false, reason: "not global unicast" };
  return { address, public: true };
};

export const isPublicAddress = (input: string): boolean => classifyAddress(input).public;
