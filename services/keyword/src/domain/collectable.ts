import { type Page, pageLimit, validationFailed, withCursorErrors } from "@earshot/platform/core";
import type { KeywordDoc } from "../store";
import type { KeywordDeps } from "./deps";

// What collection and matching use of a project: its active keywords while the project is active. A
// paused project (by its owner, or because the owner's account was deactivated) and an archived one have
// none. A project this service has not heard of yet is taken as active: its events may still be on the way.

export const listCollectableKeywords = async (
  deps: KeywordDeps,
  input: { projectId: string; limit?: number; cursor?: string },
): Promise<Page<KeywordDoc> & { collecting: boolean }> => {
  const limit = pageLimit(input.limit, 1000, 1000);
  if (!input.projectId) throw validationFailed([{ path: "projectId", message: "is required" }]);
  const state = await deps.collections.projects.findById(input.projectId);
  if (state && state.status !== "active") return { items: [], nextCursor: null, collecting: false };
  const page = await withCursorErrors(() => deps.collections.keywords.findPage({ projectId: input.projectId, active: true }, { limit, cursor: input.cursor ?? null }));
  return { ...page, collecting: true };
};
