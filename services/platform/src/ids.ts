import { randomBytes } from "node:crypto";

// Prefixed, sortable ids (DESIGN.md): the prefix says what the id names, the ULID sorts by creation time.
export const ID_PREFIXES = [
  "usr", "wsp", "key", "prj", "mbr", "inv", "kw", "kwg", "men", "cat", "view", "alr", "whk", "dlv", "evt", "req", "fam", "feed",
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

/** A ULID as `ulid` writes it: 26 characters of Crockford's base32, upper case. */
const ULID_PATTERN = "[0-9A-HJKMNP-TV-Z]{26}";

/** What each prefix names, in the words a refusal uses ("must be a keyword id (kw_…)"). */
export const ID_NAMES: Readonly<Record<IdPrefix, string>> = {
  usr: "user", wsp: "workspace", key: "API key", prj: "project", mbr: "member", inv: "invitation", kw: "keyword",
  kwg: "keyword group", men: "mention", cat: "category", view: "saved view", alr: "alert rule", whk: "webhook endpoint",
  dlv: "webhook delivery", evt: "event", req: "request", fam: "token family", feed: "feed",
};

/**
 * The shape of an id of one of these kinds as a regular expression's source (ECMA-262, so a JSON Schema
 * `pattern` too): the prefix, `_`, a ULID, nothing around them.
 */
export const idPattern = (...prefixes: readonly IdPrefix[]): string => `^${idPatternBody(...prefixes)}$`;

/** idPattern without its anchors, for a pattern that also takes other words. */
export const idPatternBody = (...prefixes: readonly IdPrefix[]): string => `(?:${prefixes.join("|")})_${ULID_PATTERN}`;

const ID_RES = new Map(ID_PREFIXES.map((p) => [p, new RegExp(idPattern(p))]));

export const isId = (prefix: IdPrefix, value: unknown): value is string => typeof value === "string" && (ID_RES.get(prefix) as RegExp).test(value);

/** How a refusal names the ids a field takes: "a keyword id (kw_…)", "a member id (mbr_…) or an invitation id (inv_…)". */
export const idKindsText = (prefixes: readonly IdPrefix[]): string =>
  prefixes.map((p) => `${/^[aeiou]/i.test(ID_NAMES[p]) ? "an" : "a"} ${ID_NAMES[p]} id (${p}_…)`).join(" or ");
