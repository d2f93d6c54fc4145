import type { MentionData } from "../world";
import { type Cases, MISSING_PROJECT, mentionsOf } from "./support";

export const mentionChangesCases: Cases = {
  list_mention_changes: {
    happy: async (h, w) => {
      const { own, keywordId } = await mentionsOf(h, w);
      return {
        input: { projectId: w.projectId, keywordId: [keywordId], limit: 10 },
        as: "viewer",
        status: 200,
        check: (b) => {
          const data = b.data as Array<MentionData & { change: string }>;
          expect(data.map((m) => [m.id, m.change])).toContainEqual([own.id, "created"]);
          expect(b.meta).toMatchObject({ nextCursor: expect.any(String), hasMore: false });
        },
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, cursor: "not-a-cursor", wait: 31, limit: 0 }, fields: ["wait", "limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
};
