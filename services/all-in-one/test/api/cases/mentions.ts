import type { MentionData } from "../world";
import { type Cases, MISSING_PROJECT, MISSING_MENTION, mentionsOf, createCategory } from "./support";

export const mentionsCases: Cases = {
  list_mentions: {
    happy: async (h, w) => {
      const { own, keywordId } = await mentionsOf(h, w);
      return {
        input: { projectId: w.projectId, status: ["open", "follow_up"], keywordId: [keywordId], limit: 10 },
        as: "viewer",
        status: 200,
        check: (b) => {
          const data = b.data as MentionData[];
          expect(data.map((m) => m.id)).toContain(own.id);
          for (const m of data) expect(m).toMatchObject({ projectId: w.projectId, keywordIds: expect.arrayContaining([keywordId]) });
          expect(data[0]).not.toHaveProperty("history");
        },
      };
    },
    bad: async (_h, w) => ({
      input: { projectId: w.projectId, status: ["open", "archived"], sentiment: "angry", since: "yesterday", limit: 0 },
      fields: ["status.1", "sentiment.0", "since", "limit"],
    }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  get_mention: {
    happy: async (h, w) => {
      const { own } = await mentionsOf(h, w);
      return {
        input: { mentionId: own.id },
        as: "viewer",
        status: 200,
        check: (b) => expect(b.data).toMatchObject({ id: own.id, projectId: w.projectId, text: own.text, history: expect.any(Array) }),
      };
    },
    bad: async () => ({ input: { mentionId: "m".repeat(65) }, fields: ["mentionId"] }),
    foreign: async (h, w) => ({ foreign: { input: { mentionId: (await mentionsOf(h, w)).stranger.id } }, missing: { input: { mentionId: MISSING_MENTION } } }),
  },
  update_mention_status: {
    happy: async (h, w) => {
      const { own } = await mentionsOf(h, w);
      return { input: { mentionId: own.id, status: "follow_up" }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: own.id, status: "follow_up" }) };
    },
    bad: async () => ({ input: { mentionId: "men_x", status: "closed" }, fields: ["mentionId", "status"] }),
    tooWeak: async (h, w) => ({ input: { mentionId: (await mentionsOf(h, w)).own.id, status: "done" }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { mentionId: (await mentionsOf(h, w)).stranger.id, status: "done" } },
      missing: { input: { mentionId: MISSING_MENTION, status: "done" } },
    }),
  },
  rate_mention: {
    happy: async (h, w) => {
      const { own } = await mentionsOf(h, w);
      return {
        input: { mentionId: own.id, relevant: true, reason: "about our product" },
        as: "editor",
        status: 200,
        check: (b) =>
          expect(b.data).toMatchObject({
            id: own.id,
            feedback: { relevant: true, reason: "about our product", byUserId: w.editor.userId },
            relevance: { score: expect.any(Number), label: expect.any(String), model: expect.any(String) },
          }),
      };
    },
    bad: async () => ({ input: { mentionId: "men_x", relevant: "yes", reason: "x".repeat(501) }, fields: ["mentionId", "relevant", "reason"] }),
    tooWeak: async (h, w) => ({ input: { mentionId: (await mentionsOf(h, w)).own.id, relevant: false }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { mentionId: (await mentionsOf(h, w)).stranger.id, relevant: true } },
      missing: { input: { mentionId: MISSING_MENTION, relevant: true } },
    }),
  },
  categorize_mention: {
    happy: async (h, w) => {
      const { own } = await mentionsOf(h, w);
      const categoryId = await createCategory(h, w.owner, w.projectId);
      return { input: { mentionId: own.id, categoryId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: own.id, categoryId }) };
    },
    bad: async () => ({ input: { mentionId: "men_x", categoryId: 7 }, fields: ["mentionId", "categoryId"] }),
    tooWeak: async (h, w) => ({ input: { mentionId: (await mentionsOf(h, w)).own.id, categoryId: null }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { mentionId: (await mentionsOf(h, w)).stranger.id, categoryId: null } },
      missing: { input: { mentionId: MISSING_MENTION, categoryId: null } },
    }),
  },
  get_mention_analytics: {
    happy: async (h, w) => {
      await mentionsOf(h, w);
      const project = await h.call("get_project", { projectId: w.projectId }, w.owner.key);
      const timezone = (project.body.data as { digestTimezone: string }).digestTimezone;
      return {
        input: { projectId: w.projectId, interval: "day", groupBy: "source" },
        as: "viewer",
        status: 200,
        check: (b) => {
          const data = b.data as { buckets: unknown[]; total: number; totals: Record<string, number>; interval: string; groupBy: string; timezone: string };
          expect(data).toMatchObject({ interval: "day", groupBy: "source", timezone });
          expect(data.buckets.length).toBeGreaterThanOrEqual(30);
          expect(data.total).toBeGreaterThanOrEqual(1);
          expect(data.totals.x).toBeGreaterThanOrEqual(1);
        },
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, interval: "month", groupBy: "colour", since: "last week" }, fields: ["interval", "groupBy", "since"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
};
