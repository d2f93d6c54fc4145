import { SOURCE_WORDS } from "@earshot/platform";
import type { mentionV1 } from "@earshot/proto";
import { waitFor } from "../../../platform/src/testing/tmp";
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

export type SourceWord = "x" | "reddit" | "youtube" | "linkedin";

/** What a test says about a post; the rest gets defaults. */
export interface PostFields {
  text: string;
  title?: string;
  source?: SourceWord;
  sourceId?: string;
  publishedAt?: Date;
  author?: { id?: string; handle?: string; name?: string; followers?: number };
  lang?: string;
}

let posts = 0;

/** A collected post of a project, as collectors emit it and `posts import` reads it. */
export const postFor = (projectId: string, fields: PostFields): mentionV1.Post => {
  posts += 1;
  const source = fields.source ?? "x";
  const sourceId = fields.sourceId ?? `post-${Date.now().toString(36)}-${posts}`;
  const handle = fields.author?.handle ?? `author${posts % 7}`;
  return {
    source: SOURCE_WORDS.value(source)!,
    sourceId,
    url: `https://example.com/${source}/${sourceId}`,
    title: fields.title,
    text: fields.text,
    author: { id: fields.author?.id ?? `uid-${handle}`, handle, name: fields.author?.name ?? `Author ${handle}`, url: undefined, followers: fields.author?.followers?.toString() },
    publishedAt: fields.publishedAt ?? new Date(Date.now() - posts * 1000),
    lang: fields.lang ?? "en",
    parentId: undefined,
    metrics: { likes: "1", replies: "0", shares: "0", views: "10" },
    projectId,
    collectedAt: new Date(),
    subreddit: undefined,
    channelId: undefined,
    channelHandle: undefined,
  };
};

/**
 * Ingests posts that must all become mentions, through the mention service's one ingestion path. The
 * service hears of projects and keywords through events, so a post can arrive before its keyword: the
 * batch is offered again until every post is stored (an unmatched post is not, and a stored one counts
 * as a duplicate the next time), which ends as soon as the last keyword event is applied.
 */
export const ingestPosts = async (h: Harness, batch: mentionV1.Post[]): Promise<void> => {
  let last = { created: 0, duplicates: 0, unmatched: 0, skipped: 0 };
  try {
    await waitFor(async () => {
      last = { created: 0, duplicates: 0, unmatched: 0, skipped: 0 };
      for (let i = 0; i < batch.length; i += 500) {
        const res = await h.mention.ingestPosts({ posts: batch.slice(i, i + 500) });
        for (const k of Object.keys(last) as Array<keyof typeof last>) last[k] += res[k];
      }
      return last.created + last.duplicates === batch.length;
    }, 15_000);
  } catch {
    throw new Error(`not every post became a mention: ${JSON.stringify(last)} of ${batch.length}`);
  }
};

export interface MentionData {
  id: string;
  projectId: string;
  source: SourceWord;
  sourceId: string;
  url: string;
  title: string | null;
  text: string;
  author: { id: string; handle: string; name: string };
  publishedAt: string;
  keywordIds: string[];
  groupIds: string[];
  sentiment: { label: "positive" | "neutral" | "negative"; score: number; method: string };
  status: "open" | "done" | "follow_up";
  categoryId: string | null;
  matchedAt: string;
}

/** Every mention of a project a list returns for `filters`, following the cursor to the end. */
export const listAllMentions = async (h: Harness, actor: Actor, projectId: string, filters: Record<string, unknown> = {}): Promise<MentionData[]> => {
  const out: MentionData[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await h.call("list_mentions", { projectId, ...filters, limit: 100, ...(cursor ? { cursor } : {}) }, actor.key);
    if (res.status !== 200) throw new Error(`list_mentions failed: ${JSON.stringify(res.body)}`);
    out.push(...(res.body.data as MentionData[]));
    cursor = (res.body.meta as { nextCursor: string | null }).nextCursor ?? undefined;
    if (!cursor) return out;
  }
};

/** A keyword of the project and `count` mentions of it (posts naming its value), newest first. */
export const keywordWithMentions = async (
  h: Harness,
  actor: Actor,
  projectId: string,
  count = 1,
  fields: Partial<PostFields> = {},
): Promise<{ keyword: KeywordData; mentions: MentionData[] }> => {
  const keyword = await createKeyword(h, actor, projectId, { value: uniqueName("Acme").replace(/\s+/g, "") });
  await ingestPosts(h, Array.from({ length: count }, () => postFor(projectId, { ...fields, text: `${keyword.value} ${fields.text ?? "shipped a release today"}` })));
  return { keyword, mentions: await listAllMentions(h, actor, projectId, { keywordId: [keyword.id] }) };
};
