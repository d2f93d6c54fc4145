import { createKeywordGroup, uniqueName } from "../world";
import { type Cases, MISSING_PROJECT, MISSING_GROUP } from "./support";

export const keywordGroupsCases: Cases = {
  list_keyword_groups: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId, limit: 100 },
      as: "viewer",
      status: 200,
      check: (b) => {
        const groups = b.data as Array<{ name: string; order: number; isDefault: boolean; projectId: string }>;
        expect(groups[0]).toMatchObject({ name: "My brand", order: 0, isDefault: true, projectId: w.projectId });
        expect(groups.find((g) => g.name === "Competitors")).toMatchObject({ order: 1, isDefault: true });
      },
    }),
    bad: async () => ({ input: { projectId: "x".repeat(65), limit: 101 }, fields: ["projectId", "limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  create_keyword_group: {
    happy: async (_h, w) => {
      const name = uniqueName("Group");
      return {
        input: { projectId: w.projectId, name },
        as: "editor",
        status: 201,
        check: (b) =>
          expect(b.data).toMatchObject({ id: expect.stringMatching(/^kwg_/), projectId: w.projectId, name, isDefault: false, keywordCount: 0, inactiveKeywordCount: 0 }),
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, name: "", color: "red" }, fields: ["name", "color"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, name: "Viewer's group" }, as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId, name: "Mine" } }, missing: { input: { projectId: MISSING_PROJECT, name: "Mine" } } }),
  },
  update_keyword_group: {
    happy: async (h, w) => {
      const groupId = await createKeywordGroup(h, w.owner, w.projectId);
      const name = uniqueName("Regrouped");
      return { input: { groupId, name, order: 5 }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: groupId, name, order: 5, isDefault: false }) };
    },
    bad: async () => ({ input: { groupId: "kwg_x", name: "", order: -1 }, fields: ["groupId", "name", "order"] }),
    tooWeak: async (h, w) => ({ input: { groupId: await createKeywordGroup(h, w.owner, w.projectId), name: "Viewer's name" }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { groupId: await createKeywordGroup(h, w.stranger, w.strangerProjectId), name: "Mine" } },
      missing: { input: { groupId: MISSING_GROUP, name: "Mine" } },
    }),
  },
  delete_keyword_group: {
    happy: async (h, w) => {
      const groupId = await createKeywordGroup(h, w.owner, w.projectId);
      return { input: { groupId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: groupId, isDefault: false }) };
    },
    bad: async () => ({ input: { groupId: "g".repeat(65) }, fields: ["groupId"] }),
    tooWeak: async (h, w) => ({ input: { groupId: await createKeywordGroup(h, w.owner, w.projectId) }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { groupId: await createKeywordGroup(h, w.stranger, w.strangerProjectId) } }, missing: { input: { groupId: MISSING_GROUP } } }),
  },
};
