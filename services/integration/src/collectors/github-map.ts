import type { CollectedPost } from "./collector";
import { isRecordValue as isRecord } from "./query-cursor";

// A GitHub search/issues item (an issue or a pull request) as a Post.

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** GitHub bodies may be long Markdown; the mention service bounds text, so keep its first part. */
const MAX_TEXT = 4000;

export const githubPostOf = (item: unknown): CollectedPost | null => {
  if (!isRecord(item) || !isRecord(item.user)) return null;
  const id = item.id;
  const url = str(item.html_url);
  const created = str(item.created_at);
  const login = str(item.user.login);
  const title = str(item.title);
  if (typeof id !== "number" || !url || !created || Number.isNaN(Date.parse(created)) || !login || !title) return null;
  const body = str(item.body) ?? "";
  return {
    source: "github",
    sourceId: String(id),
    url,
    title: title.slice(0, 300),
    text: (body || title).slice(0, MAX_TEXT),
    author: { id: String(typeof item.user.id === "number" ? item.user.id : login), handle: login, name: login, url: str(item.user.html_url) ?? `https://github.com/${login}` },
    publishedAt: new Date(Date.parse(created)).toISOString(),
  };
};
