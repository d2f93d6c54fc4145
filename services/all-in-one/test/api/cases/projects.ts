import { uniqueName } from "../world";
import { type Cases, freshProject } from "./support";

export const projectsCases: Cases = {
  list_projects: {
    happy: async (_h, w) => ({
      input: {},
      status: 200,
      check: (b) => expect((b.data as Array<{ id: string; role: string }>).find((p) => p.id === w.projectId)?.role).toBe("owner"),
    }),
    bad: async () => ({ input: { limit: 0 }, fields: ["limit"] }),
  },
  create_project: {
    happy: async (h) => ({
      input: { name: uniqueName(), digestTimezone: "Europe/Paris" },
      key: (await h.newActor()).key,
      status: 201,
      check: (b) =>
        expect(b.data).toMatchObject({ status: "active", color: "#7e47eb", icon: "📡", digestTimezone: "Europe/Paris", role: "owner" }),
    }),
    bad: async () => ({ input: { name: "", color: "red", enabledSources: ["myspace"], nickname: "x" }, fields: ["name", "color", "enabledSources.0", "nickname"] }),
  },
  get_project: {
    happy: async (_h, w) => ({ input: { projectId: w.projectId }, as: "viewer", status: 200, check: (b) => expect(b.data).toMatchObject({ id: w.projectId, role: "viewer" }) }),
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ" } } }),
  },
  update_project: {
    happy: async (h) => {
      const { owner, projectId } = await freshProject(h);
      return { input: { projectId, name: uniqueName("Renamed"), status: "paused" }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ status: "paused" }) };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, color: "nope", status: "deleted" }, fields: ["color", "status"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, status: "paused" }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId, name: "Mine" } }, missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", name: "Mine" } } }),
  },
  archive_project: {
    happy: async (h) => {
      const { owner, projectId } = await freshProject(h);
      return { input: { projectId }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ status: "archived" }) };
    },
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ" } } }),
  },
  set_public_dashboard: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId, enabled: true, websiteUrl: "https://acme.example" },
      as: "editor",
      status: 200,
      check: (b) => expect((b.data as { publicDashboard: { shareUrl: string } }).publicDashboard.shareUrl).toMatch(/\/p\//),
    }),
    bad: async (_h, w) => ({ input: { projectId: w.projectId, enabled: "yes", websiteUrl: "ftp://acme.example" }, fields: ["enabled", "websiteUrl"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, enabled: true }, as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId, enabled: true } }, missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", enabled: true } } }),
  },
};
