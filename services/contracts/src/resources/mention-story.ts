import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";

// A mention's story, as every presenter of a mention shows it: mentions that link the same page or carry
// near-identical text within 72 hours of the story's first mention, across sources.

export const mentionStorySchema = z
  .object({
    id: z.string().describe("The story's id (sto_…)."),
    size: z.number().int().min(1).describe("How many of the project's mentions the story holds, this one included."),
    firstMentionId: z.string().describe("The story's first mention: what collapse=story lists for the whole story."),
  })
  .nullable()
  .describe("The story the mention belongs to; null on mentions stored before stories existed.");

export const presentStory = (story: mentionV1.MentionStory | undefined): z.output<typeof mentionStorySchema> =>
  story?.id ? { id: story.id, size: Math.max(1, story.size), firstMentionId: story.firstMentionId } : null;
