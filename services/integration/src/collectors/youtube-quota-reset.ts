// Google resets every YouTube API key's daily quota at midnight Pacific time (America/Los_Angeles, so
// 07:00 or 08:00 UTC depending on daylight saving time).

const parts = new Intl.DateTimeFormat("en-US", { timeZone: "America/Los_Angeles", hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });

/** How far Pacific wall-clock time is from UTC at `ms` (negative: behind). */
const pacificOffsetMs = (ms: number): number => {
  const p = Object.fromEntries(parts.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return wall - Math.floor(ms / 1000) * 1000;
};

/** The next midnight in Pacific time after `now`. */
export const nextPacificMidnight = (now: Date): Date => {
  const ms = now.getTime();
  const wall = new Date(ms + pacificOffsetMs(ms));
  const nextWallMidnight = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate() + 1);
  // The offset at midnight may differ from now's across a DST change: take it at the guess itself.
  const guess = nextWallMidnight - pacificOffsetMs(ms);
  return new Date(nextWallMidnight - pacificOffsetMs(guess));
};
