import type { Actor, Harness } from "./harness";

// The people and projects most API tests need: an owner with a project in which an editor and a viewer
// are members, and a stranger from another workspace with a project of their own.
export interface World {
  owner: Actor;
  editor: Actor;
  viewer: Actor;
  stranger: Actor;
  projectId: string;
  strangerProjectId: string;
}

let n = 0;
export const uniqueName = (prefix = "Project") => `${prefix} ${++n} ${Math.random().toString(36).slice(2, 6)}`;

export const createProject = async (h: Harness, actor: Actor, name = uniqueName()): Promise<string> => {
  const res = await h.call("create_project", { name }, actor.key);
  if (res.status !== 201) throw new Error(`create_project failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};

export const buildWorld = async (h: Harness): Promise<World> => {
  const owner = await h.newActor({ name: "Olive Owner" });
  const stranger = await h.newActor({ name: "Sam Stranger" });
  const projectId = await createProject(h, owner);
  const strangerProjectId = await createProject(h, stranger);
  const editor = await h.addMember(owner, projectId, "editor");
  const viewer = await h.addMember(owner, projectId, "viewer");
  return { owner, editor, viewer, stranger, projectId, strangerProjectId };
};

/** A valid create_keyword input: the required fields with empty lists and no filters. */
export const keywordInput = (projectId: string, value = uniqueName("Acme")): Record<string, unknown> => ({
  projectId,
  value,
  sources: ["x", "reddit"],
  aliases: [],
  excludedTerms: [],
  filters: {},
  caseSensitive: false,
});

export interface KeywordData {
  id: string;
  projectId: string;
  groupId: string;
  value: string;
  active: boolean;
}

export const createKeyword = async (h: Harness, actor: Actor, projectId: string, fields: Record<string, unknown> = {}): Promise<KeywordData> => {
  const res = await h.call("create_keyword", { ...keywordInput(projectId), ...fields }, actor.key);
  if (res.status !== 201) throw new Error(`create_keyword failed: ${JSON.stringify(res.body)}`);
  return res.body.data as KeywordData;
};

export const createKeywordGroup = async (h: Harness, actor: Actor, projectId: string, name = uniqueName("Group")): Promise<string> => {
  const res = await h.call("create_keyword_group", { projectId, name }, actor.key);
  if (res.status !== 201) throw new Error(`create_keyword_group failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};
