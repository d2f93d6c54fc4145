import { compareTermMatches, type KeywordHit } from "@earshot/contracts/matcher";
import { checkPost, type FieldError, isUniqueViolation, newId, type Post, validationFailed, type Write } from "@earshot/platform/core";
import { mentionCreatedEvent, type MentionNames } from "../events";
import { MENTIONS, type MentionDoc, type ProjectStateDoc } from "../store";
import { commitChanges, type FirstSeqs } from "./change-sequence";
import type { MentionDeps } from "./deps";
import { settleIngestedGroups } from "./regroup";
import { scoreIngested } from "./relevance/ingest-score";
import { scoreSentiment } from "./sentiment";
import { storeWithStories } from "./stories/assign-stories";
import { authorKeyOf, wordsOf } from "./words";

// The one path by which posts become mentions, for collected posts (the post.collected consumer) and
// imported ones (IngestPosts) alike. A batch costs one read of its projects' states, one read of the
// post keys it would create, one read each of the copies naming the matched keywords and groups (the
// events carry the names), and one commit of the new mentions with their `mention.created` events;
// matching runs on each project's live matcher, never fetching keywords per post. A post already stored
// for its project (however it came: redelivered, collected again, imported twice) is a duplicate.

/** Posts per call: a batch is one commit, and a commit is kept to a size every store takes in one go. */
export const MAX_POSTS_PER_BATCH = 1_000;

export interface RefusedPost {
  /** Position in the batch. */
  index: number;
  /** Every bad field of the post. */
  problems: FieldError[];
}

export interface IngestResult {
  created: number;
  duplicates: number;
  unmatched: number;
  /** Posts of projects that are paused, archived or unknown to this service. */
  skipped: number;
  refused: RefusedPost[];
}

export const postKeyOf = (projectId: string, source: string, sourceId: string): string => `${projectId}|${source}|${sourceId}`;

const buildMention = (post: Post, hits: KeywordHit[], state: ProjectStateDoc, now: Date): MentionDoc => {
  const { author } = post;
  return {
    _id: newId("men", now.getTime()),
    projectId: post.projectId,
    workspaceId: state.workspaceId,
    source: post.source,
    sourceId: post.sourceId,
    postKey: postKeyOf(post.projectId, post.source, post.sourceId),
    url: post.url,
    title: post.title,
    text: post.text,
    author: { id: author.id, handle: author.handle, name: author.name, url: author.url, followers: author.followers },
    authorKey: authorKeyOf(author.handle),
    publishedAt: post.publishedAt,
    lang: post.lang,
    parentId: post.parentId,
    subreddit: post.subreddit,
    channelId: post.channelId,
    channelHandle: post.channelHandle,
    metrics: post.metrics,
    keywordIds: hits.map((h) => h.keywordId),
    groupIds: [...new Set(hits.map((h) => h.groupId))],
    matches: hits.flatMap((h) => h.matches).sort(compareTermMatches),
    sentiment: scoreSentiment(post.title, post.text),
    words: wordsOf(post.title, post.text),
    status: "open",
    collectedAt: post.collectedAt ?? now,
    matchedAt: now,
    updatedAt: now,
    history: [],
    _v: 1,
  };
};

const insertOf = (m: MentionDoc): Write => ({ kind: "insert", collection: MENTIONS, doc: m });

/** The names of the mentions' keywords and groups, from the copies the keyword events keep: one read each. */
const namesOf = async (deps: MentionDeps, mentions: MentionDoc[]): Promise<MentionNames> => {
  const keywordIds = [...new Set(mentions.flatMap((m) => m.keywordIds))];
  const groupIds = [...new Set(mentions.flatMap((m) => m.groupIds))];
  const [keywords, groups] = await Promise.all([
    deps.collections.keywords.find({ _id: { $in: keywordIds } }),
    deps.collections.groups.find({ _id: { $in: groupIds } }),
  ]);
  return {
    keywords: new Map(keywords.map((k) => [k._id, { value: k.value, groupId: k.groupId }])),
    groups: new Map(groups.map((g) => [g._id, g.name])),
  };
};

/**
 * Commits the mentions with their events, each numbered in its project's change sequence (one step of the
 * sequence per project for the whole batch); the numbers are set on the mentions given.
 */
const commitCreated = (deps: MentionDeps, mentions: MentionDoc[], eventOf: (m: MentionDoc) => ReturnType<typeof mentionCreatedEvent>, checkStories: (first: FirstSeqs) => void) => {
  const counts = new Map<string, number>();
  for (const m of mentions) counts.set(m.projectId, (counts.get(m.projectId) ?? 0) + 1);
  return commitChanges(deps, counts, (first) => {
    checkStories(first);
    const next = new Map(first);
    for (const m of mentions) {
      const seq = next.get(m.projectId)!;
      next.set(m.projectId, seq + 1);
      m.changeSeq = seq;
      m.createdSeq = seq;
    }
    return { writes: mentions.map(insertOf), events: mentions.map(eventOf) };
  });
};

/** Stores the mentions with their events in one commit; returns how many were new. */
const storeMentions = async (deps: MentionDeps, mentions: MentionDoc[]): Promise<{ created: number; clashes: number }> => {
  if (mentions.length === 0) return { created: 0, clashes: 0 };
  const names = await namesOf(deps, mentions);
  const eventOf = (m: MentionDoc) => mentionCreatedEvent(m, names);
  try {
    // Stories: each new mention joins the story its links or text belong to, or starts one.
    await storeWithStories(deps, mentions, (check) => commitCreated(deps, mentions, eventOf, check));
    return { created: mentions.length, clashes: 0 };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  // Another replica stored some of these posts between the read and the commit (the same post delivered
  // to both): the commit took nothing, so one by one, and whatever clashes now is a duplicate.
  let created = 0;
  let clashes = 0;
  for (const m of mentions) {
    try {
      // Placed again alone: a mention of the batch that clashed started no story.
      await storeWithStories(deps, [m], (check) => commitCreated(deps, [m], eventOf, check));
      created += 1;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      clashes += 1;
    }
  }
  return { created, clashes };
};

/**
 * The groups were the matcher's at the revision read with the projects' states; a keyword moved since may
 * have regrouped its mentions before these were stored (regroup.ts settles them). Usually one read.
 */
const settleGroups = (deps: MentionDeps, states: ReadonlyMap<string, ProjectStateDoc>, stored: readonly MentionDoc[]): Promise<void> => {
  const revisions = new Map<string, number>();
  const keywordIds = new Map<string, Set<string>>();
  for (const m of stored) {
    revisions.set(m.projectId, states.get(m.projectId)?.keywordsRevision ?? 0);
    const ids = keywordIds.get(m.projectId) ?? new Set<string>();
    for (const k of m.keywordIds) ids.add(k);
    keywordIds.set(m.projectId, ids);
  }
  return settleIngestedGroups(deps, revisions, keywordIds);
};

/**
 * Matches and stores a batch of posts (each a Post: source as a word, times as Dates or ISO strings).
 * Refuses more than MAX_POSTS_PER_BATCH; a post that is not valid is refused alone, with everything wrong with it.
 */
export const ingestPosts = async (deps: MentionDeps, input: readonly unknown[]): Promise<IngestResult> => {
  if (input.length > MAX_POSTS_PER_BATCH) throw validationFailed([{ path: "posts", message: `must hold at most ${MAX_POSTS_PER_BATCH} posts` }]);
  const result: IngestResult = { created: 0, duplicates: 0, unmatched: 0, skipped: 0, refused: [] };
  const byProject = new Map<string, Post[]>();
  input.forEach((value, index) => {
    const checked = checkPost(value);
    if (!checked.ok) {
      result.refused.push({ index, problems: checked.errors });
      deps.logger.warn({ index, problems: checked.errors }, "post refused");
      return;
    }
    const list = byProject.get(checked.post.projectId);
    if (list) list.push(checked.post);
    else byProject.set(checked.post.projectId, [checked.post]);
  });

  const states = new Map((await deps.collections.projects.find({ _id: { $in: [...byProject.keys()] } })).map((s) => [s._id, s]));
  const now = deps.clock.now();
  const candidates = new Map<string, MentionDoc>();
  for (const [projectId, posts] of byProject) {
    const state = states.get(projectId);
    // Paused (an account deactivation pauses its owner's projects), archived, or not heard of yet.
    if (state?.status !== "active") {
      result.skipped += posts.length;
      continue;
    }
    const matcher = await deps.matchers.matcherFor(deps, projectId, state.keywordsRevision ?? 0);
    for (const post of posts) {
      const hits = matcher.match(post);
      if (hits.length === 0) {
        result.unmatched += 1;
        continue;
      }
      const key = postKeyOf(projectId, post.source, post.sourceId);
      // The same post twice in one batch: the first one counts.
      if (candidates.has(key)) result.duplicates += 1;
      else candidates.set(key, buildMention(post, hits, state, now));
    }
  }

  if (candidates.size > 0) {
    const stored = await deps.collections.mentions.find({ postKey: { $in: [...candidates.keys()] } });
    for (const m of stored) candidates.delete(m.postKey);
    result.duplicates += stored.length;
    // Relevance: each new mention scored by its project's model before it is stored.
    await scoreIngested(deps, states, [...candidates.values()]);
    const { created, clashes } = await storeMentions(deps, [...candidates.values()]);
    result.created += created;
    result.duplicates += clashes;
    if (created > 0) await settleGroups(deps, states, [...candidates.values()]);
  }

  const outcomes = { created: result.created, duplicate: result.duplicates, unmatched: result.unmatched, skipped: result.skipped, refused: result.refused.length };
  for (const [outcome, n] of Object.entries(outcomes)) if (n > 0) deps.ingested.inc({ outcome }, n);
  deps.logger.debug({ posts: input.length, ...outcomes }, "posts ingested");
  return result;
};
