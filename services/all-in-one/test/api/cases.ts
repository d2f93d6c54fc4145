import type { ApiResponse, Harness } from "./harness";
import { ACME, authorizeLinkedin, connectedProject } from "./linkedin-flow";
import { createKeyword, createKeywordGroup, createProject, keywordInput, keywordWithMentions, type MentionData, uniqueName, type World } from "./world";

// One entry per catalog operation: how to call it successfully, how to call it with bad input (and which
// field must be named), which member role is not enough, and whether it is about a project (tenancy).

export interface Call {
  input: Record<string, unknown>;
  /** Who calls: defaults to the world's owner. */
  as?: keyof Pick<World, "owner" | "editor" | "viewer" | "stranger">;
  key?: string;
}

export interface OperationCase {
  /** `check` gets the JSON body, and the whole response for what is not JSON (a download). */
  happy: (h: Harness, w: World) => Promise<Call & { status: number; check?: (body: Record<string, unknown>, res: ApiResponse) => void }>;
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
const MISSING_MENTION = "men_01JZZZZZZZZZZZZZZZZZZZZZZZ";
const MISSING_CATEGORY = "cat_01JZZZZZZZZZZZZZZZZZZZZZZZ";
const MISSING_VIEW = "mvw_01JZZZZZZZZZZZZZZZZZZZZZZZ";

/**
 * A mention in the world's project and one in the stranger's, made once per world: every case reuses
 * them, so the cases spend two keywords of the plan's allowance, not one per call.
 */
const worldMentions = new WeakMap<World, Promise<{ own: MentionData; keywordId: string; stranger: MentionData }>>();
const mentionsOf = (h: Harness, w: World) => {
  let made = worldMentions.get(w);
  if (!made) {
    made = (async () => {
      const own = await keywordWithMentions(h, w.owner, w.projectId, 1);
      const stranger = await keywordWithMentions(h, w.stranger, w.strangerProjectId, 1);
      return { own: own.mentions[0]!, keywordId: own.keyword.id, stranger: stranger.mentions[0]! };
    })();
    worldMentions.set(w, made);
  }
  return made;
};

const createCategory = async (h: Harness, actor: World["owner"], projectId: string, name = uniqueName("Category")): Promise<string> => {
  const res = await h.call("create_category", { projectId, name }, actor.key);
  if (res.status !== 201) throw new Error(`create_category failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};

const createView = async (h: Harness, actor: World["owner"], projectId: string, filters: Record<string, unknown> = { status: ["open"] }): Promise<string> => {
  const res = await h.call("create_mention_view", { projectId, name: uniqueName("View"), filters }, actor.key);
  if (res.status !== 201) throw new Error(`create_mention_view failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};

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
    bad: async () => ({ input: { mentionId: "men_x", status: "closed" }, fields: ["status"] }),
    tooWeak: async (h, w) => ({ input: { mentionId: (await mentionsOf(h, w)).own.id, status: "done" }, as: "viewer" }),
    foreign: async (h, w) => ({
      foreign: { input: { mentionId: (await mentionsOf(h, w)).stranger.id, status: "done" } },
      missing: { input: { mentionId: MISSING_MENTION, status: "done" } },
    }),
  },
  categorize_mention: {
    happy: async (h, w) => {
      const { own } = await mentionsOf(h, w);
      const categoryId = await createCategory(h, w.owner, w.projectId);
      return { input: { mentionId: own.id, categoryId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: own.id, categoryId }) };
    },
    bad: async () => ({ input: { mentionId: "men_x", categoryId: 7 }, fields: ["categoryId"] }),
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
    bad: async () => ({ input: { categoryId: "cat_x", name: "", order: -1 }, fields: ["name", "order"] }),
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
    bad: async () => ({ input: { viewId: "mvw_x", name: "", filters: { source: ["myspace"] } }, fields: ["name", "filters.source.0"] }),
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
  get_source_health: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId },
      as: "viewer",
      status: 200,
      check: (b) => {
        const data = b.data as { projectId: string; sources: Array<{ source: string; state: string; postsLast24h: number }> };
        expect(data.projectId).toBe(w.projectId);
        expect(data.sources.map((s) => s.source)).toEqual(["x", "reddit", "youtube", "linkedin"]);
        for (const s of data.sources) expect(["collecting", "idle", "stopped", "backing_off"]).toContain(s.state);
      },
    }),
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
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
    happy: async () => ({
      input: {},
      status: 200,
      check: (b) =>
        expect(b.data).toMatchObject({
          plan: "free",
          limits: { projects: { allowance: 10 }, keywords: { allowance: 100 }, mentionsThisMonth: { allowance: null, used: expect.any(Number) } },
        }),
    }),
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
  // LinkedIn: the harness of these cases serves LinkedIn from its simulator (operations.test.ts).
  get_linkedin_connect_url: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId },
      status: 200,
      check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, url: expect.stringContaining("/oauth/v2/authorization?"), expiresAt: expect.any(String) }),
    }),
    bad: async () => ({ input: { projectId: "x".repeat(65), pageUrn: "urn" }, fields: ["projectId", "pageUrn"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  get_linkedin_integration: {
    happy: async (_h, w) => ({ input: { projectId: w.projectId }, status: 200, check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, syncsPerDay: 20 }) }),
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  select_linkedin_page: {
    happy: async (h) => {
      const { owner, projectId } = await freshProject(h);
      await authorizeLinkedin(h, owner, projectId);
      return { input: { projectId, organizationUrn: ACME }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ status: "connected", page: { organizationUrn: ACME } }) };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, organizationUrn: "" }, fields: ["organizationUrn"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, organizationUrn: ACME }, as: "editor" }),
    foreign: async (_h, w) => ({
      foreign: { input: { projectId: w.strangerProjectId, organizationUrn: ACME } },
      missing: { input: { projectId: MISSING_PROJECT, organizationUrn: ACME } },
    }),
  },
  sync_linkedin: {
    happy: async (h) => {
      const owner = await h.newActor();
      const { projectId } = await connectedProject(h, owner);
      return { input: { projectId }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ postsFound: 0, integration: { status: "connected", syncsLeftToday: 18 } }) };
    },
    bad: async () => ({ input: { projectId: "" }, fields: ["projectId"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  disconnect_linkedin: {
    happy: async (_h, w) => ({ input: { projectId: w.projectId }, status: 200, check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, status: "disconnected", page: null }) }),
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
};
