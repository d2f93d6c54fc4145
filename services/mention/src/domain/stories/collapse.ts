import { validationFailed } from "@earshot/platform/core";
import { MENTION_COLLAPSES as COLLAPSES } from "../../fields";

export type Collapse = (typeof COLLAPSES)[number];

/** The collapse asked for (none for absent or empty); anything else is refused, naming `field`. */
export const collapseOf = (value: string | undefined, field = "collapse"): Collapse | undefined => {
  if (value === undefined || value === "") return undefined;
  if ((COLLAPSES as readonly string[]).includes(value)) return value as Collapse;
  throw validationFailed([{ path: field, message: `must be one of ${COLLAPSES.join(", ")}` }]);
};

/**
 * What a collapsed read adds to its query: no mention that joined a story after its first (mentions
 * stored before stories, which have no story, stay). The filters then apply to the first mention (a story
 * whose first mention they leave out is not listed), which keeps a collapsed list one indexed query paged
 * like any other, whatever a story's size.
 */
export const collapseFilter = (collapse: Collapse | undefined): Record<string, unknown> => (collapse === "story" ? { storyLead: { $ne: false } } : {});
