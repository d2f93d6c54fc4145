import { type Collection, type Doc, isUniqueViolation } from "@earshot/platform/core";
import type { MentionEvent } from "@earshot/contracts/events";
import { presentMention } from "@earshot/contracts/resources";
import type { MentionDoc } from "../store";
import type { DigestDeps } from "./deps";
import { storeWithCurrentGroups } from "./keyword-groups";
import { ruleMatches } from "./matching";

// Each new mention is kept for the digests, and queued for every active instant rule of its project that
// it matches; the scheduler's next tick sends the queue. The event carries the whole mention, so nothing
// is read back from the mention service.

type MentionCreated = Extract<MentionEvent, { type: "mention.created" }>;

/** The mention as the digest keeps it, from the event's mention as the API presents it; none without one. */
const mentionOf = (event: MentionCreated, now: Date): MentionDoc | undefined => {
  const d = event.data;
  if (!d.mention?.id || !d.projectId) return undefined;
  const m = presentMention(d.mention);
  return {
    _id: m.id,
    projectId: d.projectId,
    source: m.source,
    url: m.url,
    ...(m.title ? { title: m.title } : {}),
    text: m.text,
    authorHandle: m.author.handle,
    ...(m.author.name ? { authorName: m.author.name } : {}),
    keywordIds: [...m.keywordIds],
    groupIds: [...m.groupIds],
    keywords: d.keywords.map((k) => ({ keywordId: k.keywordId, value: k.value })),
    sentiment: m.sentiment.label,
    ...(m.relevance ? { relevanceScore: m.relevance.score } : {}),
    ...(m.story ? { storyId: m.story.id } : {}),
    publishedAt: new Date(m.publishedAt),
    matchedAt: new Date(m.matchedAt),
    receivedAt: now,
    _v: 1,
  };
};

/**
 * Inserts what is not stored yet, in one write; a clash (another consumer of the group got there meanwhile)
 * falls back to one by one, skipping what is there.
 */
const insertMissing = async <T extends Doc>(collection: Collection<T>, docs: T[]): Promise<void> => {
  if (docs.length === 0) return;
  const stored = new Set((await collection.find({ _id: { $in: docs.map((d) => d._id) } })).map((d) => d._id));
  const missing = docs.filter((d) => !stored.has(d._id));
  if (missing.length === 0) return;
  try {
    await collection.insertMany(missing);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    for (const doc of missing) {
      await collection.insertOne(doc).catch((e: unknown) => {
        if (!isUniqueViolation(e)) throw e;
      });
    }
  }
};

/**
 * A batch of new mentions: each kept, and queued for every active instant rule of its project it matches.
 * One read of the rules of the batch's projects, one write of the mentions and one of the queue, however
 * many events; an event seen before (redelivered) finds its mention and queue entries stored and adds none.
 */
export const handleMentionsCreated = async (deps: DigestDeps, events: MentionCreated[]): Promise<void> => {
  const now = deps.clock.now();
  const byId = new Map<string, MentionDoc>();
  for (const event of events) {
    const mention = mentionOf(event, now);
    if (mention && !byId.has(mention._id)) byId.set(mention._id, mention);
  }
  const mentions = [...byId.values()];
  if (mentions.length === 0) return;
  // With their keywords' groups now: an event can arrive after a move of a keyword it predates.
  await storeWithCurrentGroups(deps, mentions, () => insertMissing(deps.collections.mentions, mentions));
  const projectIds = [...new Set(mentions.map((m) => m.projectId))];
  const rules = await deps.collections.rules.find({ projectId: projectIds.length === 1 ? projectIds[0] : { $in: projectIds }, active: true, instant: true });
  const queued = mentions.flatMap((mention) =>
    rules
      .filter((r) => r.projectId === mention.projectId && ruleMatches(r, mention))
      .map((rule) => ({ _id: `${rule._id}:${mention._id}`, ruleId: rule._id, mentionId: mention._id, at: now, _v: 1 })),
  );
  await insertMissing(deps.collections.pending, queued);
};

/** One new mention: `handleMentionsCreated` of one. */
export const handleMentionCreated = (deps: DigestDeps, event: MentionCreated): Promise<void> => handleMentionsCreated(deps, [event]);
