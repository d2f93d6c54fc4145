import { uniqueName } from "../world";
import { type Cases, MISSING_PROJECT, MISSING_CATEGORY, createCategory } from "./support";

export const categoriesCases: Cases = {
  list_categories: {
    happy: async (h, w) => {
      const categoryId = await createCategory(h, w.owner, w.projectId);
      return {
        input: { projectId: w.projectId, limit: 100 },
        as: "viewer",
        status: 200,
        check: (b) => expect((b.data as Array<{ id: string; projectId: string }>).find((c) => c.id === categoryId)).toMatchObject({ projectId: w.projectId }),
      };
    },
    bad: async () => ({ input: { projectId: "x".repeat(65), limit: 101 }, fields: ["projectId", "limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  create_category: {
    happy: async (_h, w) => {
      const name = uniqueName("Category");
      return {
        input: { projectId: w.projectId, name, description: "Questions customers ask", icon: "❓" },
        as: "editor",
        status: 201,
        check: (b) =>
          expect(b.data).toEqual({
            id: expect.any(String),
            projectId: w.projectId,
            name,
            description: "Questions customers ask",
            icon: "❓",
            order: expect.any(Number),
            createdAt: expect.any(String),
            updatedAt: expect.any(String),
          }),
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, name: "", icon: "x".repeat(11), colour: "red" }, fields: ["name", "icon", "colour"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, name: "Viewer's category" }, as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId, name: "Mine" } }, missing: { input: { projectId: MISSING_PROJECT, name: "Mine" } } }),
  },
  update_category: {
    happy: async (h, w) => {
      const categoryId = await createCategory(h, w.owner, w.projectId);
      const name = uniqueName("Renamed");
      return { input: { categoryId, name, order: 3 }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: categoryId, name, order: 3 }) };
    },
    bad: async () => ({ input: { categoryId: "cat_x", name: "", order: -1 }, fields: ["categoryId", "name", "order"] }),
    tooWeak: async (h, w) => ({ input: { categoryId: await createCategory(h, w.owner, w.projectId), name: "Viewer's name" }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { categoryId: await createCategory(h, w.stranger, w.strangerProjectId), name: "Mine" } },
      missing: { input: { categoryId: MISSING_CATEGORY, name: "Mine" } },
    }),
  },
  delete_category: {
    happy: async (h, w) => {
      const categoryId = await createCategory(h, w.owner, w.projectId);
      return { input: { categoryId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: categoryId, projectId: w.projectId }) };
    },
    bad: async () => ({ input: { categoryId: "c".repeat(65) }, fields: ["categoryId"] }),
    tooWeak: async (h, w) => ({ input: { categoryId: await createCategory(h, w.owner, w.projectId) }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { categoryId: await createCategory(h, w.stranger, w.strangerProjectId) } }, missing: { input: { categoryId: MISSING_CATEGORY } } }),
  },
};
