import { MAX_PAGE_SIZE } from "@earshot/platform/core";
import type { HandlerContext } from "../operation";

// The names a CSV export writes beside the ids: the project's keywords and groups (keyword service) and
// categories (mention service), each list read whole once per export, as the caller, before the first
// byte; the rows then look names up in memory. Keywords include deactivated ones, which older mentions
// still name. An id without a name (a group or category deleted since) is written as an empty name.

export interface ExportNames {
  keywords: ReadonlyMap<string, string>;
  groups: ReadonlyMap<string, string>;
  categories: ReadonlyMap<string, string>;
}

interface Page<T> {
  items: T[];
  nextCursor: string;
}

const everyPage = async <T>(read: (cursor: string) => Promise<Page<T>>): Promise<T[]> => {
  const all: T[] = [];
  let cursor = "";
  do {
    const page = await read(cursor);
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
};

const byId = <T extends { id: string }>(items: T[], name: (item: T) => string) => new Map(items.map((i) => [i.id, name(i)]));

export const loadExportNames = async (ctx: HandlerContext, projectId: string): Promise<ExportNames> => {
  const { keyword, mention } = ctx.backends;
  const page = { projectId, limit: MAX_PAGE_SIZE };
  const [keywords, groups, categories] = await Promise.all([
    everyPage(async (cursor) => {
      const res = await keyword.listKeywords({ ...page, cursor });
      return { items: res.keywords, nextCursor: res.nextCursor };
    }),
    everyPage(async (cursor) => {
      const res = await keyword.listKeywordGroups({ ...page, cursor });
      return { items: res.groups, nextCursor: res.nextCursor };
    }),
    everyPage(async (cursor) => {
      const res = await mention.listCategories({ ...page, cursor });
      return { items: res.categories, nextCursor: res.nextCursor };
    }),
  ]);
  return { keywords: byId(keywords, (k) => k.value), groups: byId(groups, (g) => g.name), categories: byId(categories, (c) => c.name) };
};
