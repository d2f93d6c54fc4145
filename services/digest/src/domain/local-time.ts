// Wall-clock time in an IANA time zone with nothing but Intl. Offsets are read from Intl at the instants
// involved, never assumed, so DST changes and half- or quarter-hour zones (Asia/Kolkata, Pacific/Chatham)
// need no special case.

export interface LocalTime {
  /** The local calendar date, `YYYY-MM-DD`. */
  date: string;
  hour: number;
  minute: number;
}

const HOUR = 3_600_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

const formatterOf = (timeZone: string): Intl.DateTimeFormat => {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" });
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

export const localTime = (instant: Date, timeZone: string): LocalTime => {
  const out: Record<string, string> = {};
  for (const p of formatterOf(timeZone).formatToParts(instant)) out[p.type] = p.value;
  return { date: `${out.year}-${out.month}-${out.day}`, hour: Number(out.hour), minute: Number(out.minute) };
};

/**
 * The first instant whose local date is `date` and whose local hour is `hour` or later: `hour`:00 on that
 * day, or, when a DST change skips that hour, the first instant after the gap.
 */
export const startOfLocalHour = (date: string, hour: number, timeZone: string): Date => {
  // Guess the instant as if the zone were UTC, then walk by the local offsets (at most a day off).
  let lo = Date.parse(`${date}T00:00:00Z`) - 15 * HOUR;
  let hi = lo + 48 * HOUR;
  const atOrAfter = (t: number) => {
    const l = localTime(new Date(t), timeZone);
    return l.date > date || (l.date === date && l.hour >= hour);
  };
  // Local time only moves forward with the instant (a repeated hour repeats, never goes back a date), so a
  // binary search to the minute finds the first instant at or after the local hour.
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 2 / 60_000) * 60_000;
    if (atOrAfter(mid)) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
};
