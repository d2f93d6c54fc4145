import type { StagedEvent } from "@earshot/platform/core";
import type { MentionDoc } from "../store";

// `mention.created`, through the outbox to `earshot.mention.v1` in the same commit as the mention, keyed
// by project id. `data` is the JSON form of events.proto's MentionCreated.

export const MENTION_EVENT_SOURCE = "earshot/mention";

export interface MentionCreatedData {
  mentionId: string;
  projectId: string;
  workspaceId: string;
  source: string;
  sourceId: string;
  url: string;
  keywordIds: string[];
  groupIds: string[];
  sentiment: string;
  publishedAt: string;
}

export const mentionCreatedEvent = (m: MentionDoc): StagedEvent<MentionCreatedData> => ({
  type: "mention.created",
  source: MENTION_EVENT_SOURCE,
  subject: m._id,
  key: m.projectId,
  data: {
    mentionId: m._id,
    projectId: m.projectId,
    workspaceId: m.workspaceId,
    source: m.source,
    sourceId: m.sourceId,
    url: m.url,
    keywordIds: [...m.keywordIds],
    groupIds: [...m.groupIds],
    sentiment: m.sentiment.label,
    publishedAt: m.publishedAt.toISOString(),
  },
});
