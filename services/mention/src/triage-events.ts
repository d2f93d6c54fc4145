import type { StagedEvent } from "@earshot/platform";
import type { mentionV1Events } from "@earshot/proto";
import type { MentionDoc } from "./store";

// `mention.updated`: a person changed a mention's status or category. Through the outbox to
// `earshot.mention.v1` in the same commit as the change, keyed by project id so one project's changes
// keep their order; `data` is the proto JSON form of `MentionUpdated` (the mention as it is after the
// change, and which fields changed).

export const MENTION_EVENT_SOURCE = "earshot/mention";

export const mentionUpdatedEvent = (m: MentionDoc, fields: Array<"status" | "categoryId">, byUserId: string): StagedEvent<mentionV1Events.MentionUpdated> => ({
  type: "mention.updated",
  source: MENTION_EVENT_SOURCE,
  subject: m._id,
  key: m.projectId,
  data: {
    mentionId: m._id,
    projectId: m.projectId,
    workspaceId: m.workspaceId,
    fields: [...fields],
    status: m.status,
    categoryId: m.categoryId ?? "",
    byUserId,
  },
});
