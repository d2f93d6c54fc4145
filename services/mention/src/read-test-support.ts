import type { Page } from "@earshot/platform";
import type { MentionWorld } from "./test-support";

// Helpers for the tests of the reads: the copies the reads consult (a project's time zone, its default
// keyword groups) written as the project and keyword events would have left them, and paging to the end.

/** Records the project as the project service's events would (status active, in `timezone`). */
export const knowProject = async (world: MentionWorld, projectId: string, timezone = "UTC", workspaceId = "wsp_1"): Promise<void> => {
  await world.deps.collections.projects.insertOne({ _id: projectId, workspaceId, status: "active", timezone, updatedAt: world.clock.now() });
};

/** Records the project's My brand and Competitors groups as the keyword service's events would. */
export const knowDefaultGroups = async (world: MentionWorld, projectId: string, ids: { myBrand: string; competitors: string }): Promise<void> => {
  const now = world.clock.now();
  await world.deps.collections.groups.insertMany([
    { _id: ids.myBrand, projectId, name: "My brand", isDefault: true, updatedAt: now },
    { _id: ids.competitors, projectId, name: "Competitors", isDefault: true, updatedAt: now },
  ]);
};

/** Every item of a paged read, page after page; `between` runs after each page but the last. */
export const readAll = async <T>(read: (cursor: string | undefined) => Promise<Page<T>>, between?: (pageNumber: number) => Promise<void>): Promise<T[]> => {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let n = 1; ; n++) {
    const page = await read(cursor);
    out.push(...page.items);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
    if (between) await between(n);
  }
};
