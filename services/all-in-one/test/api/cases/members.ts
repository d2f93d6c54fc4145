import { uniqueName } from "../world";
import { type Cases, freshMember, freshProject } from "./support";

export const membersCases: Cases = {
  list_project_members: {
    happy: async (_h, w) => ({ input: { projectId: w.projectId }, as: "viewer", status: 200, check: (b) => expect((b.data as unknown[]).length).toBeGreaterThanOrEqual(3) }),
    bad: async (_h, w) => ({ input: { projectId: w.projectId, limit: 101 }, fields: ["limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ" } } }),
  },
  invite_project_member: {
    happy: async (h) => {
      const { owner, projectId } = await freshProject(h);
      return {
      input: { projectId, email: `${uniqueName("invitee").replace(/\W+/g, "-").toLowerCase()}@example.com` },
      key: owner.key,
      status: 201,
      check: (b) => expect(b.data).toMatchObject({ memberType: "invite", role: "viewer", status: "pending" }),
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, email: "not-an-address", role: "admin" }, fields: ["email", "role"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, email: "someone-new@example.com" }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId, email: "x@example.com" } }, missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", email: "x@example.com" } } }),
  },
  update_project_member: {
    happy: async (h, w) => {
      const { projectId, memberId, owner } = await freshMember(h);
      return { input: { projectId, memberId, role: "editor" }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ role: "editor", memberType: "member" }) };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, memberId: "mbr_x", role: "owner", memberType: "guest" }, fields: ["memberId", "role", "memberType"] }),
    tooWeak: async (h, w) => {
      const list = await h.call("list_project_members", { projectId: w.projectId }, w.owner.key);
      const viewerRow = (list.body.data as Array<{ id: string; userId: string }>).find((m) => m.userId === w.viewer.userId);
      return { input: { projectId: w.projectId, memberId: viewerRow!.id, role: "editor" }, as: "editor" };
    },
    foreign: async (_h, w) => ({
      foreign: { input: { projectId: w.strangerProjectId, memberId: "mbr_01JZZZZZZZZZZZZZZZZZZZZZZZ", role: "editor" } },
      missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", memberId: "mbr_01JZZZZZZZZZZZZZZZZZZZZZZZ", role: "editor" } },
    }),
  },
  remove_project_member: {
    happy: async (h, w) => {
      const { projectId, memberId, owner } = await freshMember(h);
      return { input: { projectId, memberId }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ id: memberId }) };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, memberId: "mbr_x", memberType: "guest" }, fields: ["memberId", "memberType"] }),
    tooWeak: async (h, w) => {
      const list = await h.call("list_project_members", { projectId: w.projectId }, w.owner.key);
      const viewerRow = (list.body.data as Array<{ id: string; userId: string }>).find((m) => m.userId === w.viewer.userId);
      return { input: { projectId: w.projectId, memberId: viewerRow!.id }, as: "editor" };
    },
    foreign: async (_h, w) => ({
      foreign: { input: { projectId: w.strangerProjectId, memberId: "mbr_01JZZZZZZZZZZZZZZZZZZZZZZZ" } },
      missing: { input: { projectId: "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ", memberId: "mbr_01JZZZZZZZZZZZZZZZZZZZZZZZ" } },
    }),
  },
};
