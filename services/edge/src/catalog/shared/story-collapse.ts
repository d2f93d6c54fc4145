import { MENTION_COLLAPSES } from "@earshot/mention/fields";
import { z } from "zod";

/** `collapse` of the mention lists and the change feed. */
export const collapseQuery = z
  .enum(MENTION_COLLAPSES)
  .optional()
  .describe(
    "story: each story once (mentions linking the same page or carrying near-identical text within 72 hours of the story's first mention, across sources), " +
      "as its first mention with story.size counting the whole story. Filters apply to that first mention.",
  );
