import { mentionSchema, presentMention } from "@earshot/contracts/resources";
import { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { resourceSchemas } from "../shared/resources";

// A change of the mention change feed: the mention as list_mentions presents it, in its latest state, and
// whether the reader meets it as new (stored after the cursor it passed) or as changed.

export const CHANGE_KINDS = ["created", "updated"] as const;

export const mentionChangeSchema = mentionSchema
  .extend({
    change: z
      .enum(CHANGE_KINDS)
      .describe(
        "created: stored after the position of the cursor you passed (it may have changed since); updated: stored before it and changed after it. " +
          "A mention comes only at its latest change, so one stored before your position that changed again before your reads reached it comes first as updated: treat any mention you do not hold yet as new.",
      ),
  })
  .register(resourceSchemas, { id: "MentionChange", description: "A mention created or changed after a change feed cursor, in its latest state." });

export type MentionChange = z.output<typeof mentionChangeSchema>;

export const presentMentionChange = (c: mentionV1.MentionChange): MentionChange => ({
  ...presentMention(c.mention),
  change: c.change === mentionV1.MentionChangeKind.MENTION_CHANGE_KIND_CREATED ? "created" : "updated",
});
