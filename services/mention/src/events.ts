import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import { toMentionMessage } from "./mention-message";
import type { MentionDoc } from "./store";
import { MENTION_EVENTS, type MentionCreated, type MentionUpdated } from "@earshot/contracts/events/mention";

// The mention service's events: the builders its domain stages through the outbox. The catalog and the
// decoded event types are the contract layer's (`@earshot/contracts/events`), re-exported here for this
// service's own code; other services read them from the contract layer.

export * from "@earshot/contracts/events/mention";

/** What the mention service last heard the keywords and groups of a mention are called. */
export interface MentionNames {
  keywords: ReadonlyMap<string, { value: string; groupId: string }>;
  groups: ReadonlyMap<string, string>;
}

export const mentionCreatedEvent = (m: MentionDoc, names: MentionNames): StagedEvent<MentionCreated> =>
  stageEvent(MENTION_EVENTS, "mention.created", { key: m.projectId, subject: m._id }, {
    projectId: m.projectId,
    workspaceId: m.workspaceId,
    keywords: m.keywordIds.map((keywordId) => {
      const named = names.keywords.get(keywordId);
      return { keywordId, value: named?.value ?? "", groupId: named?.groupId ?? "" };
    }),
    groups: m.groupIds.map((groupId) => ({ groupId, name: names.groups.get(groupId) ?? "" })),
    mention: toMentionMessage(m),
  });

export const mentionUpdatedEvent = (m: MentionDoc, fields: Array<"status" | "categoryId" | "feedback" | "relevance">, byUserId: string): StagedEvent<MentionUpdated> =>
  stageEvent(MENTION_EVENTS, "mention.updated", { key: m.projectId, subject: m._id }, {
    mentionId: m._id,
    projectId: m.projectId,
    workspaceId: m.workspaceId,
    fields: [...fields],
    status: m.status,
    categoryId: m.categoryId ?? "",
    byUserId,
    mention: toMentionMessage(m),
  });
