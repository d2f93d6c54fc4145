import { isUniqueViolation } from "@earshot/platform/core";
import type { MentionEvent } from "@earshot/mention/events";
import type { MentionDoc } from "../store";
import type { DigestDeps } from "./deps";
import { ruleMatches } from "./matching";

// Each new mention is kept for the digests, and queued for every active instant rule of its project that
// it matches; the scheduler's next tick sends the queue. The event carries the whole mention, so nothing
// is read back from the mention service.

export const handleMentionCreated = async (deps: DigestDeps, event: Extract<MentionEvent, { type: "mention.created" }>): Promise<void> => {
  const d = event.data;
  if (!d.mentionId || !d.projectId) return;
  const now = deps.clock.now();
  const mention: MentionDoc = {
    _id: d.mentionId,
    projectId: d.projectId,
    source: d.source,
    url: d.url,
    ...(d.title ? { title: d.title } : {}),
    text: d.text,
    authorHandle: d.author?.handle ?? "",
    ...(d.author?.name ? { authorName: d.author.name } : {}),
    keywordIds: [...d.keywordIds],
    groupIds: [...d.groupIds],
    keywords: d.keywords.map((k) => ({ keywordId: k.keywordId, value: k.value })),
    sentiment: d.sentiment?.label ?? "neutral",
    publishedAt: new Date(d.publishedAt),
    matchedAt: d.matchedAt ? new Date(d.matchedAt) : now,
    receivedAt: now,
    _v: 1,
  };
  try {
    await deps.collections.mentions.insertOne(mention);
  } catch (err) {
    // A redelivered event: the mention is kept and queued already (the queue's keys make a retry harmless).
    if (!isUniqueViolation(err)) throw err;
  }
  const rules = await deps.collections.rules.find({ projectId: d.projectId, active: true, instant: true });
  for (const rule of rules.filter((r) => ruleMatches(r, mention))) {
    try {
      await deps.collections.pending.insertOne({ _id: `${rule._id}:${mention._id}`, ruleId: rule._id, mentionId: mention._id, at: now, _v: 1 });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
};
