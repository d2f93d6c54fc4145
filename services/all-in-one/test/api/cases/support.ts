import type { ApiResponse, Harness } from "../harness";
import { createProject, keywordWithMentions, type MentionData, uniqueName, type World } from "../world";

// What the cases of every resource share: the shape of a case, fresh owners for writes that spend an
// allowance, ids nobody has, and resources made once per world.

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

/** The cases of one resource's operations, by operation name. */
export type Cases = Record<string, OperationCase>;

// Writes that create projects or seats run as a fresh owner each time, so the world's owner never
// reaches the plan's allowances however many tests run.
export const freshMember = async (h: Harness) => {
  const owner = await h.newActor();
  const projectId = await createProject(h, owner);
  const member = await h.addMember(owner, projectId, "viewer");
  const list = await h.call("list_project_members", { projectId }, owner.key);
  const row = (list.body.data as Array<{ id: string; userId: string }>).find((m) => m.userId === member.userId);
  return { projectId, memberId: row!.id, member, owner };
};

export const freshProject = async (h: Harness) => {
  const owner = await h.newActor();
  return { owner, projectId: await createProject(h, owner) };
};

export const MISSING_PROJECT = "prj_01JZZZZZZZZZZZZZZZZZZZZZZZ";
export const MISSING_KEYWORD = "kw_01JZZZZZZZZZZZZZZZZZZZZZZZ";
export const MISSING_GROUP = "kwg_01JZZZZZZZZZZZZZZZZZZZZZZZ";
export const MISSING_MENTION = "men_01JZZZZZZZZZZZZZZZZZZZZZZZ";
export const MISSING_CATEGORY = "cat_01JZZZZZZZZZZZZZZZZZZZZZZZ";
export const MISSING_VIEW = "view_01JZZZZZZZZZZZZZZZZZZZZZZZ";

/**
 * A mention in the world's project and one in the stranger's, made once per world: every case reuses
 * them, so the cases spend two keywords of the plan's allowance, not one per call.
 */
const worldMentions = new WeakMap<World, Promise<{ own: MentionData; keywordId: string; stranger: MentionData }>>();
export const mentionsOf = (h: Harness, w: World) => {
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

export const createCategory = async (h: Harness, actor: World["owner"], projectId: string, name = uniqueName("Category")): Promise<string> => {
  const res = await h.call("create_category", { projectId, name }, actor.key);
  if (res.status !== 201) throw new Error(`create_category failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};
