// Google's metering of a YouTube API key: every call costs units (search.list 100, the list calls 1)
// out of a daily budget that resets at midnight Pacific time.

export const YOUTUBE_COSTS = { search: 100, videos: 1, commentThreads: 1 } as const;

const pacificDay = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Los_Angeles", year: "numeric", month: "2-digit", day: "2-digit" });

export class YoutubeQuota {
  private day = "";
  private used = 0;

  constructor(readonly dailyBudget: number) {}

  /** Spends `units` of the day's budget if they are left. */
  take(units: number, nowMs: number): boolean {
    const day = pacificDay.format(new Date(nowMs));
    if (day !== this.day) {
      this.day = day;
      this.used = 0;
    }
    if (this.used + units > this.dailyBudget) return false;
    this.used += units;
    return true;
  }
}
