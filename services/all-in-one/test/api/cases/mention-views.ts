import type { Harness } from "../harness";
import { uniqueName, type World } from "../world";
import { type Cases, MISSING_PROJECT, MISSING_VIEW } from "./support";

const createView = async (h: Harness, actor: World["owner"], projectId: string, filters: Record<string, unknown> = { status: ["open"] }): Promise<string> => {
  const res = await h.call("create_mention_view", { projectId, name: uniqueName("View"), filters }, actor.key);
  if (res.status !== 201) throw new Error(`create_mention_view failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};

export const mentionViewsCases: Cases = {
  list_mention_views: {
    happy: async (h, w) => {
      const viewId = await createView(h, w.owner, w.projectId, { source: ["reddit"] });
      return {
        input: { projectId: w.projectId, limit: 100 },
        as: "viewer",
        status: 200,
        check: (b) => expect((b.data as Array<{ id: string }>).find((v) => v.id === viewId)).toMatchObject({ filters: { source: ["reddit"] } }),
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, limit: 0, cursor: "" }, fields: ["limit", "cursor"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  get_mention_view: {
    happy: async (h, w) => {
      const viewId = await createView(h, w.owner, w.projectId, { sentiment: ["negative"] });
      return {
        input: { viewId },
        as: "viewer",
        status: 200,
        check: (b) => expect(b.data).toMatchObject({ id: viewId, projectId: w.projectId, filters: { sentiment: ["negative"] } }),
      };
    },
    bad: async () => ({ input: { viewId: "mvw_x" }, fields: ["viewId"] }),
    foreign: async (h, w) => ({ foreign: { input: { viewId: await createView(h, w.stranger, w.strangerProjectId) } }, missing: { input: { viewId: MISSING_VIEW } } }),
  },
  create_mention_view: {
    happy: async (_h, w) => {
      const name = uniqueName("View");
      const filters = { status: ["open", "follow_up"], source: ["x"], categoryId: ["none"], q: "launch", since: "2026-01-01T00:00:00.000Z" };
      return {
        input: { projectId: w.projectId, name, filters },
        as: "editor",
        status: 201,
        check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, name, filters }),
      };
    },
    bad: async (_h, w) => ({
      input: { projectId: w.projectId, name: "", filters: { status: ["closed"], colour: "red", since: "last week" } },
      fields: ["name", "filters.status.0", "filters.colour", "filters.since"],
    }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, name: "Viewer's view", filters: {} }, as: "viewer" }),
    foreign: async (_h, w) => ({
      foreign: { input: { projectId: w.strangerProjectId, name: "Mine", filters: {} } },
      missing: { input: { projectId: MISSING_PROJECT, name: "Mine", filters: {} } },
    }),
  },
  update_mention_view: {
    happy: async (h, w) => {
      const viewId = await createView(h, w.owner, w.projectId, { status: ["open"], source: ["x"] });
      return {
        input: { viewId, filters: { sentiment: ["negative"] }, order: 4 },
        as: "editor",
        status: 200,
        // Given filters replace the old ones whole.
        check: (b) => expect(b.data).toMatchObject({ id: viewId, filters: { sentiment: ["negative"] }, order: 4 }),
      };
    },
    bad: async () => ({ input: { viewId: "mvw_x", name: "", filters: { source: ["myspace"] } }, fields: ["viewId", "name", "filters.source.0"] }),
    tooWeak: async (h, w) => ({ input: { viewId: await createView(h, w.owner, w.projectId), name: "Viewer's view" }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { viewId: await createView(h, w.stranger, w.strangerProjectId), name: "Mine" } },
      missing: { input: { viewId: MISSING_VIEW, name: "Mine" } },
    }),
  },
  delete_mention_view: {
    happy: async (h, w) => {
      const viewId = await createView(h, w.owner, w.projectId);
      return { input: { viewId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: viewId }) };
    },
    bad: async () => ({ input: { viewId: "v".repeat(65) }, fields: ["viewId"] }),
    tooWeak: async (h, w) => ({ input: { viewId: await createView(h, w.owner, w.projectId) }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { viewId: await createView(h, w.stranger, w.strangerProjectId) } }, missing: { input: { viewId: MISSING_VIEW } } }),
  },
};
