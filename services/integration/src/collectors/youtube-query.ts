import type { CollectKeyword } from "./collector";

// search.list queries for a project's keywords. YouTube's `q` reads `"phrase" | "other"` as either
// phrase and `-"term"` as an exclusion that holds for the whole query, so keywords share a query only when
// they exclude the same terms (an exclusion must never hide another keyword's videos), and a keyword
// restricted to channels (`filters.youtubeChannels`, `UC…` ids) is searched in each of its channels.
// Every search costs 100 quota units, so keywords are packed into as few queries as `q` allows.

/** Longest `q` sent; YouTube does not publish a limit, long queries are truncated silently. */
export const MAX_YOUTUBE_Q = 500;

export interface YoutubeSearchQuery {
  /** Stable across polls while the keywords stay the same: the cursor is kept under it. */
  id: string;
  q: string;
  channelId?: string;
  /** The phrases the query asks for, in order (a video's comments are searched for the one it contains). */
  phrases: string[];
}

const quote = (phrase: string) => `"${phrase.replace(/"/g, " ").replace(/\s+/g, " ").trim()}"`;

// Channel ids start `UC` (24 characters on YouTube); handles (`@name`) cannot restrict a search.
const isChannelId = (value: string) => /^UC[A-Za-z0-9_-]+$/.test(value);

export const buildYoutubeQueries = (keywords: readonly CollectKeyword[]): YoutubeSearchQuery[] => {
  const groups = new Map<string, { channelId?: string; exclusions: string[]; phrases: string[] }>();
  for (const k of [...keywords].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const exclusions = [...new Set(k.excludedTerms.map((t) => quote(t)).filter((t) => t !== '""'))].sort();
    const channels = (k.filters.youtubeChannels ?? []).filter(isChannelId);
    const phrases = [k.value, ...k.aliases].map((p) => p.trim()).filter(Boolean);
    for (const channelId of channels.length ? [...new Set(channels)].sort() : [undefined]) {
      const key = `${channelId ?? ""}\u0000${exclusions.join(" ")}`;
      const group = groups.get(key) ?? { ...(channelId ? { channelId } : {}), exclusions, phrases: [] };
      for (const p of phrases) if (!group.phrases.some((q) => q.toLowerCase() === p.toLowerCase())) group.phrases.push(p);
      groups.set(key, group);
    }
  }
  const out: YoutubeSearchQuery[] = [];
  for (const group of groups.values()) {
    const suffix = group.exclusions.map((e) => ` -${e}`).join("");
    let chunk: string[] = [];
    const flush = () => {
      if (!chunk.length) return;
      const q = chunk.map(quote).join(" | ") + suffix;
      out.push({ id: `${group.channelId ?? "*"} ${q}`, q, ...(group.channelId ? { channelId: group.channelId } : {}), phrases: chunk });
      chunk = [];
    };
    for (const phrase of group.phrases) {
      const next = [...chunk, phrase].map(quote).join(" | ") + suffix;
      if (chunk.length && next.length > MAX_YOUTUBE_Q) flush();
      chunk.push(phrase);
    }
    flush();
  }
  return out;
};
