import type { MentionData } from "../world";
import { type Cases, MISSING_PROJECT, mentionsOf } from "./support";

export const mentionExportCases: Cases = {
  export_mentions: {
    happy: async (h, w) => {
      const { own } = await mentionsOf(h, w);
      return {
        input: { projectId: w.projectId, format: "ndjson" },
        as: "viewer",
        status: 200,
        check: (_b, res) => {
          expect(res.headers.get("content-type")).toBe("application/x-ndjson");
          expect(res.headers.get("content-disposition")).toBe(`attachment; filename="mentions-${w.projectId}.ndjson"`);
          const lines = res.text.trimEnd().split("\n").map((l) => JSON.parse(l) as MentionData);
          expect(lines.map((m) => m.id)).toContain(own.id);
        },
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, format: "xml", status: "closed" }, fields: ["format", "status.0"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
};
