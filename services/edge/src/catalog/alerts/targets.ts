import { type FieldError, isDomainError, validationFailed } from "@earshot/platform";
import type { Backends } from "../../backends";

// A rule's keywords and groups must be its project's. The keyword service owns them, so they are checked
// against it at write time, as the caller (a keyword created a moment ago is valid; one of another project,
// another workspace, or nobody's is a 400 naming the entry).

export interface Targets {
  keywordIds: readonly string[];
  groupIds: readonly string[];
}

const NOT_OURS = "is not a keyword of this project";
const NOT_OUR_GROUP = "is not a keyword group of this project";

const keywordProject = async (backends: Backends, keywordId: string): Promise<string | undefined> => {
  try {
    return (await backends.keyword.getKeyword({ keywordId })).keyword?.projectId;
  } catch (err) {
    if (isDomainError(err) && err.code === "not_found") return undefined;
    throw err;
  }
};

const projectGroups = async (backends: Backends, projectId: string): Promise<Set<string>> => {
  const ids = new Set<string>();
  let cursor = "";
  do {
    const page = await backends.keyword.listKeywordGroups({ projectId, limit: 100, cursor });
    for (const g of page.groups) ids.add(g.id);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
};

/** Refuses (400, `filters.keywordIds.<i>` / `filters.groupIds.<i>`) a target that is not the project's. */
export const checkTargets = async (backends: Backends, projectId: string, targets: Targets): Promise<void> => {
  const errors: FieldError[] = [];
  const owners = await Promise.all(targets.keywordIds.map((id) => keywordProject(backends, id)));
  owners.forEach((owner, i) => {
    if (owner !== projectId) errors.push({ path: `filters.keywordIds.${i}`, message: NOT_OURS });
  });
  if (targets.groupIds.length > 0) {
    const groups = await projectGroups(backends, projectId);
    targets.groupIds.forEach((id, i) => {
      if (!groups.has(id)) errors.push({ path: `filters.groupIds.${i}`, message: NOT_OUR_GROUP });
    });
  }
  if (errors.length > 0) throw validationFailed(errors);
};
