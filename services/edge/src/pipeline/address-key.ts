import { isIP } from "node:net";
import { normalizeAddress } from "@earshot/platform";

// Which clients share one failed-authentication budget. One IPv6 host is normally handed a whole /64,
// so counting per full address would give it 2^64 budgets; an IPv4-mapped address (::ffff:a.b.c.d, what
// a dual-stack socket reports for an IPv4 client) is that IPv4 client.

const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

export const addressKeyOf = (address: string): string => {
  const canonical = normalizeAddress(address);
  if (canonical === undefined) return address;
  if (isIP(canonical) === 4) return canonical;
  const mapped = MAPPED.exec(canonical);
  if (mapped) {
    const hi = Number.parseInt(mapped[1] as string, 16);
    const lo = Number.parseInt(mapped[2] as string, 16);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
  }
  const [head, tail] = canonical.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups.slice(0, 4).join(":")}::/64`;
};
