import { randomBytes } from "node:crypto";

// Prefixed, sortable ids (DESIGN.md): the prefix says what the id names, the ULID sorts by creation time.
export const ID_PREFIXES = [
  "usr", "wsp", "key", "prj", "mbr", "inv", "kw", "kwg", "men", "cat", "view", "alr", "whk", "dlv", "evt", "req", "fam",
] as const;

export type IdPrefix = (typeof ID_PREFIXES)[number];

// ULIDs: 48-bit millisecond time + 80 random bits, Crockford base32. Random bytes come from a pooled
// crypto buffer (one syscall per 4 KiB) because ids are made on every request. Within one millisecond
// the random part is incremented, so ids of one process stay strictly increasing (monotonic ULID).
const ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let pool = Buffer.alloc(0);
let poolOffset = 0;
let lastTime = -1;
let lastRandom: number[] = [];

const freshRandom = (): number[] => {
  if (poolOffset + 16 > pool.length) {
    pool = randomBytes(4096);
    poolOffset = 0;
  }
  const out: number[] = [];
  for (let i = 0; i < 16; i++) out.push((pool[poolOffset + i] as number) & 31);
  poolOffset += 16;
  return out;
};

const increment = (digits: number[]): number[] => {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if ((next[i] as number) < 31) {
      next[i] = (next[i] as number) + 1;
      return next;
    }
    next[i] = 0;
  }
  return freshRandom();
};

export const ulid = (now: number = Date.now()): string => {
  let time = Math.max(now, lastTime);
  lastRandom = time === lastTime ? increment(lastRandom) : freshRandom();
  lastTime = time;
  let timePart = "";
  for (let i = 0; i < 10; i++) {
    timePart = (ENCODING[time % 32] as string) + timePart;
    time = Math.floor(time / 32);
  }
  return timePart + lastRandom.map((d) => ENCODING[d]).join("");
};

export const newId = (prefix: IdPrefix, now: number = Date.now()): string => `${prefix}_${ulid(now)}`;

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const isId = (prefix: IdPrefix, value: unknown): value is string =>
  typeof value === "string" && value.startsWith(`${prefix}_`) && ULID_RE.test(value.slice(prefix.length + 1));
