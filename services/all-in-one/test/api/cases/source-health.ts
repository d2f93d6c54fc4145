import { type Cases, MISSING_PROJECT } from "./support";

export const sourceHealthCases: Cases = {
  get_source_health: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId },
      as: "viewer",
      status: 200,
      check: (b) => {
        const data = b.data as { projectId: string; sources: Array<{ source: string; state: string; postsLast24h: number }> };
        expect(data.projectId).toBe(w.projectId);
        expect(data.sources.map((s) => s.source)).toEqual(["x", "reddit", "youtube", "linkedin", "hackernews", "bluesky", "rss", "github"]);
        for (const s of data.sources) expect(["collecting", "idle", "stopped", "backing_off"]).toContain(s.state);
      },
    }),
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
};
