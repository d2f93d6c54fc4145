import type { Harness } from "./harness";
import { createKeyword, createKeywordGroup, createProject, keywordInput, uniqueName, type World } from "./world";

// One entry per catalog operation: how to call it successfully, how to call it with bad input (and which
// field must be named), which member role is not enough, and whether it is about a project (tenancy).

export interface Call {
  input: Record<string, unknown>;
  /** Who calls: defaults to the world's owner. */
  as?: keyof Pick<World, "owner" | "editor" | "viewer" | "stranger">;
  key?: string;
}

export interface OperationCase {
  happy: (h: Harness, w: World) => Promise<Call & { status: number; check?: (body: Record<string, unknown>) => void }>;
  bad: (h: Harness, w: World) => Promise<Call & { fields: string[] }>;
  /** A member role that is refused (403 forbidden), with a valid input. */
  tooWeak?: (h: Harness, w: World) => Promise<Call>;
  /** Another workspace's project (or resource) answers 404 with the body of a missing one. */
  foreign?: (h: Harness, w: World) => Promise<{ foreign: Call; missing: Call }>;
}

// Writes that create projects or seats run as a fresh owner each time, so the world's owner never
// reaches the plan's allowances however many tests run.
const freshMember = async (h: Harness) => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner);
  const member = await h.addMember(owner, projectId, "viewer");
  const list = await h.call("list_project_members", { projectId }, owner.key);
  const row = (list.body.data as Array<{ id: string; userId: string }>).find((m) => m.userId === member.userId);
  return { projectId, memberId: row!.id, member, owner };
};

const freshProject = async (h: Harness) => {
  const owner = await h.newActor();
  return { owner, projectId: await createProject(h, owner) };
};

const MISSING_PROJECT = "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ";
const MISSING_KEYWORD = "kw_01JZZZZZZZZZZZZZZZZZZZZZZZ";
const MISSING_GROUP = "kwg_01JZZZZZZZZZZZZZZZZZZZZZZZ";

/** A keyword of the world's project, made by its owner. */
const ownKeyword = async (h: Harness, w: World) => (await createKeyword(h, w.owner, w.projectId)).id;
/** A keyword of the stranger's project, which the world's owner must not see. */
const strangerKeyword = async (h: Harness, w: World) => (await createKeyword(h, w.stranger, w.strangerProjectId)).id;

// Wrong on every count the keyword fields check: an empty value, an unknown source, one alias too many,
// a string for a list, an unknown filter member and a string for a boolean.
const BAD_KEYWORD_FIELDS = {
  value: "",
  sources: ["x", "myspace"],
  aliases: Array.from({ length: 21 }, (_, i) => `alias ${i}`),
  excludedTerms: "spam",
  filters: { colour: "red" },
  caseSensitive: "yes",
};
const BAD_KEYWORD_PATHS = ["value", "sources.1", "aliases", "excludedTerms", "filters.colour", "caseSensitive"];

export const CASES: Record<string, OperationCase> = {
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
    bad: async (_h, w) => ({ input: { projectId: w.projectId, memberId: "mbr_x", role: "owner", memberType: "guest" }, fields: ["role", "memberType"] }),
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
    bad: async (_h, w) => ({ input: { projectId: w.projectId, memberId: "mbr_x", memberType: "guest" }, fields: ["memberType"] }),
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
  list_keywords: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      return {
        input: { projectId: w.projectId, active: true, source: "reddit" },
        as: "viewer",
        status: 200,
        check: (b) => {
          const data = b.data as Array<{ id: string; active: boolean; sources: string[] }>;
          expect(data.map((k) => k.id)).toContain(keywordId);
          for (const k of data) expect(k).toMatchObject({ active: true, sources: expect.arrayContaining(["reddit"]) });
        },
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, active: "yes", source: "myspace", limit: 0 }, fields: ["active", "source", "limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  create_keyword: {
    happy: async (_h, w) => {
      const input = { ...keywordInput(w.projectId), aliases: ["Acme Corp"], filters: { languages: ["en", "fr"], minFollowers: 10, allOf: [] } };
      return {
        input,
        as: "editor",
        status: 201,
        check: (b) =>
          expect(b.data).toEqual({
            id: expect.stringMatching(/^kw_/),
            projectId: w.projectId,
            groupId: expect.stringMatching(/^kwg_/),
            value: input.value,
            sources: ["x", "reddit"],
            aliases: ["Acme Corp"],
            excludedTerms: [],
            // Only the filters that restrict something: the empty allOf is left out.
            filters: { languages: ["en", "fr"], minFollowers: 10 },
            caseSensitive: false,
            active: true,
            createdAt: expect.any(String),
            updatedAt: expect.any(String),
            deactivatedAt: null,
          }),
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, ...BAD_KEYWORD_FIELDS }, fields: BAD_KEYWORD_PATHS }),
    tooWeak: async (_h, w) => ({ input: keywordInput(w.projectId), as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: keywordInput(w.strangerProjectId) }, missing: { input: keywordInput(MISSING_PROJECT) } }),
  },
  get_keyword: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      return { input: { keywordId }, as: "viewer", status: 200, check: (b) => expect(b.data).toMatchObject({ id: keywordId, projectId: w.projectId, active: true }) };
    },
    bad: async () => ({ input: { keywordId: "k".repeat(65) }, fields: ["keywordId"] }),
    foreign: async (h, w) => ({ foreign: { input: { keywordId: await strangerKeyword(h, w) } }, missing: { input: { keywordId: MISSING_KEYWORD } } }),
  },
  update_keyword: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      const value = uniqueName("Renamed");
      return {
        input: { keywordId, value, sources: ["youtube"], excludedTerms: ["hiring"], filters: { youtubeChannels: ["@acme"] }, caseSensitive: true },
        as: "editor",
        status: 200,
        check: (b) =>
          expect(b.data).toMatchObject({ id: keywordId, value, sources: ["youtube"], excludedTerms: ["hiring"], filters: { youtubeChannels: ["@acme"] }, caseSensitive: true, active: true }),
      };
    },
    bad: async () => ({ input: { keywordId: "kw_x", sources: [], filters: { colour: "red" }, active: "no", groupId: "" }, fields: ["sources", "filters.colour", "active", "groupId"] }),
    tooWeak: async (h, w) => ({ input: { keywordId: await ownKeyword(h, w), value: "Viewer's choice" }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { keywordId: await strangerKeyword(h, w), value: "Mine" } }, missing: { input: { keywordId: MISSING_KEYWORD, value: "Mine" } } }),
  },
  delete_keyword: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      return { input: { keywordId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: keywordId, active: false, deactivatedAt: expect.any(String) }) };
    },
    bad: async () => ({ input: { keywordId: "k".repeat(65) }, fields: ["keywordId"] }),
    tooWeak: async (h, w) => ({ input: { keywordId: await ownKeyword(h, w) }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { keywordId: await strangerKeyword(h, w) } }, missing: { input: { keywordId: MISSING_KEYWORD } } }),
  },
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
    bad: async () => ({ input: { groupId: "kwg_x", name: "", order: -1 }, fields: ["name", "order"] }),
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
  get_account: {
    happy: async (_h, w) => ({ input: {}, status: 200, check: (b) => expect(b.data).toMatchObject({ id: w.owner.userId, name: "Olive Owner", status: "active" }) }),
    bad: async () => ({ input: {}, fields: [] }),
  },
  update_account: {
    happy: async () => ({ input: { name: "Olive Owner" }, status: 200, check: (b) => expect(b.data).toMatchObject({ name: "Olive Owner" }) }),
    bad: async () => ({ input: { name: "", nickname: "o" }, fields: ["name", "nickname"] }),
  },
  delete_account: {
    happy: async (h) => {
      const throwaway = await h.newActor();
      return { input: { confirmation: "DELETE" }, key: throwaway.key, status: 200, check: (b) => expect(b.data).toMatchObject({ status: "deactivated" }) };
    },
    bad: async () => ({ input: { confirmation: "delete" }, fields: ["confirmation"] }),
  },
  get_usage: {
    happy: async () => ({ input: {}, status: 200, check: (b) => expect(b.data).toMatchObject({ plan: "free", limits: { projects: { allowance: 10 }, keywords: { allowance: 100 } } }) }),
    bad: async () => ({ input: {}, fields: [] }),
  },
  list_api_keys: {
    happy: async () => ({ input: { limit: 1 }, status: 200, check: (b) => expect((b.meta as { nextCursor: string | null }).nextCursor).toEqual(expect.any(String)) }),
    bad: async () => ({ input: { cursor: "garbage" }, fields: ["cursor"] }),
  },
  create_api_key: {
    happy: async () => ({
      input: { name: "CI", scopes: ["projects:read"] },
      status: 201,
      check: (b) => expect(b.data).toMatchObject({ key: expect.stringMatching(/^svc_sk_[A-Za-z0-9_-]{43}$/), readOnly: true, scopes: ["projects:read"] }),
    }),
    bad: async () => ({ input: { scopes: ["projects:admin"], expiresAt: "tomorrow" }, fields: ["scopes.0", "expiresAt"] }),
  },
  revoke_api_key: {
    happy: async (h, w) => {
      const created = await h.call("create_api_key", { scopes: ["projects:read"] }, w.owner.key);
      return { input: { keyId: (created.body.data as { id: string }).id }, status: 200, check: (b) => expect(b.data).toMatchObject({ revokedAt: expect.any(String) }) };
    },
    bad: async () => ({ input: { keyId: "k".repeat(65) }, fields: ["keyId"] }),
    foreign: async (h, w) => {
      const created = await h.call("create_api_key", { scopes: ["projects:read"] }, w.stranger.key);
      return { foreign: { input: { keyId: (created.body.data as { id: string }).id } }, missing: { input: { keyId: "key_01JZZZZZZZZZZZZZZZZZZZZZZZ" } } };
    },
  },
};
