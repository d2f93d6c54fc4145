import type { Harness } from "../harness";
import { createKeyword, createKeywordGroup, uniqueName, type World } from "../world";
import { type Cases, MISSING_PROJECT } from "./support";

const MISSING_ALERT = "alr_01JZZZZZZZZZZZZZZZZZZZZZZZ";

/** A keyword and a group in the world's project and a keyword in the stranger's, made once per world. */
const worldTargets = new WeakMap<World, Promise<{ keywordId: string; groupId: string; strangerKeywordId: string }>>();
const targetsOf = (h: Harness, w: World) => {
  let made = worldTargets.get(w);
  if (!made) {
    made = (async () => ({
      keywordId: (await createKeyword(h, w.owner, w.projectId)).id,
      groupId: await createKeywordGroup(h, w.owner, w.projectId),
      strangerKeywordId: (await createKeyword(h, w.stranger, w.strangerProjectId)).id,
    }))();
    worldTargets.set(w, made);
  }
  return made;
};

const createAlert = async (h: Harness, actor: World["owner"], projectId: string, fields: Record<string, unknown> = {}): Promise<string> => {
  const res = await h.call("create_alert", { projectId, name: uniqueName("Alert"), ...fields }, actor.key);
  if (res.status !== 201) throw new Error(`create_alert failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};

export const alertsCases: Cases = {
  list_alerts: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId },
      as: "viewer",
      status: 200,
      check: (b) => {
        const [first] = b.data as Array<Record<string, unknown>>;
        // Every project has its Daily Digest, first: 8 AM in the project's zone, to the workspace owner.
        expect(first).toMatchObject({ name: "Daily Digest", isDefault: true, active: true, channels: [{ type: "email" }], digest: { enabled: true, hour: 8 }, instant: false });
      },
    }),
    bad: async () => ({ input: { projectId: "x".repeat(65), limit: 0 }, fields: ["projectId", "limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  get_alert: {
    happy: async (h, w) => {
      const alertId = await createAlert(h, w.owner, w.projectId);
      return { input: { alertId }, as: "viewer", status: 200, check: (b) => expect(b.data).toMatchObject({ id: alertId, projectId: w.projectId, isDefault: false }) };
    },
    bad: async () => ({ input: { alertId: "a".repeat(65) }, fields: ["alertId"] }),
    foreign: async (h, w) => ({ foreign: { input: { alertId: await createAlert(h, w.stranger, w.strangerProjectId) } }, missing: { input: { alertId: MISSING_ALERT } } }),
  },
  create_alert: {
    happy: async (h, w) => {
      const { keywordId, groupId } = await targetsOf(h, w);
      const name = uniqueName("Negative");
      return {
        input: { projectId: w.projectId, name, instant: true, digest: { enabled: true, hour: 17 }, filters: { keywordIds: [keywordId], groupIds: [groupId], sentiments: ["negative"] } },
        as: "editor",
        status: 201,
        check: (b) =>
          expect(b.data).toMatchObject({
            id: expect.stringMatching(/^alr_/),
            projectId: w.projectId,
            name,
            active: true,
            channels: [{ type: "email" }],
            digest: { enabled: true, hour: 17 },
            instant: true,
            filters: { keywordIds: [keywordId], groupIds: [groupId], sources: [], sentiments: ["negative"] },
            isDefault: false,
          }),
      };
    },
    // Two channels, and a digest hour past 23.
    bad: async (_h, w) => ({ input: { projectId: w.projectId, name: "Two ways", channels: [{ type: "email" }, { type: "email" }], digest: { enabled: true, hour: 24 } }, fields: ["channels", "digest.hour"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, name: "Viewer's alert" }, as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId, name: "Mine" } }, missing: { input: { projectId: MISSING_PROJECT, name: "Mine" } } }),
  },
  update_alert: {
    happy: async (h, w) => {
      const alertId = await createAlert(h, w.owner, w.projectId);
      const { keywordId } = await targetsOf(h, w);
      return {
        input: { alertId, active: false, filters: { keywordIds: [keywordId], sources: ["reddit"] } },
        as: "editor",
        status: 200,
        check: (b) => expect(b.data).toMatchObject({ id: alertId, active: false, filters: { keywordIds: [keywordId], groupIds: [], sources: ["reddit"], sentiments: [] } }),
      };
    },
    // A keyword of another workspace's project is named by its place in the list.
    bad: async (h, w) => {
      const alertId = await createAlert(h, w.owner, w.projectId);
      const { keywordId, strangerKeywordId } = await targetsOf(h, w);
      return { input: { alertId, filters: { keywordIds: [keywordId, strangerKeywordId] } }, fields: ["filters.keywordIds.1"] };
    },
    tooWeak: async (h, w) => ({ input: { alertId: await createAlert(h, w.owner, w.projectId), name: "Viewer's name" }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { alertId: await createAlert(h, w.stranger, w.strangerProjectId), name: "Mine" } },
      missing: { input: { alertId: MISSING_ALERT, name: "Mine" } },
    }),
  },
  delete_alert: {
    happy: async (h, w) => {
      const alertId = await createAlert(h, w.owner, w.projectId);
      return { input: { alertId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: alertId, isDefault: false }) };
    },
    bad: async () => ({ input: { alertId: "a".repeat(65) }, fields: ["alertId"] }),
    tooWeak: async (h, w) => ({ input: { alertId: await createAlert(h, w.owner, w.projectId) }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { alertId: await createAlert(h, w.stranger, w.strangerProjectId) } }, missing: { input: { alertId: MISSING_ALERT } } }),
  },
};
