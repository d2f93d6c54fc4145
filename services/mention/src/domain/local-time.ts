// Calendar arithmetic in an IANA time zone with nothing but Intl: where a local hour, day or week begins
// as an instant. Offsets are read from Intl at the instants involved, never assumed, so a day is local
// midnight to local midnight (23 or 25 hours across a DST change) and a day whose midnight does not exist
// begins at the first instant that has its date.

export type Interval = "hour" | "day" | "week";

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Monday 0 … Sunday 6. */
  weekday: number;
}

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const formatters = new Map<string, Intl.DateTimeFormat>();

const formatterOf = (timeZone: string): Intl.DateTimeFormat => {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      weekday: "short",
    });
    formatters.set(timeZone, f);
  }
  return f;
};

/** Whether Intl knows the zone (an unknown one would throw at every use). */
export const isKnownTimeZone = (timeZone: string): boolean => {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
};

const partsOf = (instant: number, timeZone: string): LocalParts => {
  const out: Record<string, string> = {};
  for (const p of formatterOf(timeZone).formatToParts(instant)) out[p.type] = p.value;
  return {
    year: Number(out.year),
    month: Number(out.month),
    day: Number(out.day),
    hour: Number(out.hour),
    minute: Number(out.minute),
    second: Number(out.second),
    weekday: WEEKDAYS.indexOf(out.weekday ?? ""),
  };
};

/** The zone's offset from UTC at an instant, in ms (local wall time = instant + offset). */
const offsetAt = (instant: number, timeZone: string): number => {
  const p = partsOf(instant, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - (instant - (((instant % 1000) + 1000) % 1000));
};

const sameDate = (a: LocalParts, b: LocalParts) => a.year === b.year && a.month === b.month && a.day === b.day;

/** The first instant of the local day holding `instant`. */
const startOfDay = (instant: number, timeZone: string): number => {
  const p = partsOf(instant, timeZone);
  const midnightWall = Date.UTC(p.year, p.month - 1, p.day);
  // Two rounds settle on local midnight; where midnight falls in a DST gap they alternate between the
  // instants either side of the gap, and the day begins at the later one (the first with its date).
  const first = midnightWall - offsetAt(instant, timeZone);
  const second = midnightWall - offsetAt(first, timeZone);
  const third = midnightWall - offsetAt(second, timeZone);
  const candidates = [second, third].filter((c) => sameDate(partsOf(c, timeZone), p));
  return candidates.length > 0 ? Math.min(...candidates) : second;
};

/** The first instant of the local hour, day or week (Monday) holding `instant`. */
export const bucketStart = (instant: number, interval: Interval, timeZone: string): number => {
  if (interval === "hour") {
    const p = partsOf(instant, timeZone);
    return instant - (((instant % 1000) + 1000) % 1000) - (p.minute * 60 + p.second) * 1000;
  }
  const day = startOfDay(instant, timeZone);
  if (interval === "day") return day;
  const back = partsOf(day, timeZone).weekday;
  // Noon of the Monday is inside that day whatever DST did in between.
  return back === 0 ? day : startOfDay(day - back * DAY + 12 * HOUR, timeZone);
};

/** The start of the bucket after the one starting at `start`. */
export const nextBucketStart = (start: number, interval: Interval, timeZone: string): number => {
  if (interval === "hour") return bucketStart(start + HOUR + HOUR / 2, "hour", timeZone);
  // Past the longest possible day (25 h) or week, short of the one after.
  return bucketStart(start + (interval === "day" ? 36 * HOUR : 7 * DAY + 12 * HOUR), interval, timeZone);
};

/** A rough bucket length, to refuse an oversized range before walking it. */
export const nominalLength = (interval: Interval): number => (interval === "hour" ? HOUR : interval === "day" ? DAY : 7 * DAY);
