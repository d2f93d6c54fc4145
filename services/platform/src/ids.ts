import { monotonicFactory } from "ulid";

// Prefixed, sortable ids (DESIGN.md): the prefix says what the id names, the ULID sorts by creation time.
export const ID_PREFIXES = [
  "usr", "wsp", "key", "prj", "mbr", "inv", "kw", "kwg", "men", "cat", "view", "alr", "whk", "dlv", "evt", "req",
] as const;

export type IdPrefix = (typeof ID_PREFIXES)[number];

const ulid = monotonicFactory();

export const newId = (prefix: IdPrefix, now: number = Date.now()): string => `${prefix}_${ulid(now)}`;

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const isId = (prefix: IdPrefix, value: unknown): value is string =>
  typeof value === "string" && value.startsWith(`${prefix}_`) && ULID_RE.test(value.slice(prefix.length + 1));
