import { authorDisplay } from "@earshot/contracts";
import type { Mention } from "@earshot/contracts/resources";

// What a chat message says of a mention, the same in every format: read from a mention.created delivery's
// `data` (the mention as the API presents it) and `context` (the keyword and group names it matched). Each
// format writes it in its own markup (slack.ts, discord.ts).

/** The fields a chat message shows, as `data` holds them. */
export type ChatMention = Pick<Mention, "url" | "title" | "text" | "source" | "author" | "publishedAt" | "sentiment" | "keywordIds">;

/** What the event says beside the mention. */
export interface ChatContext {
  keywords?: Array<{ id: string; value: string; groupId?: string }>;
  groups?: Array<{ id: string; name: string }>;
}

/** How much of a post a message quotes: a glimpse and a link read better in a channel than a wall of text. */
export const EXCERPT_CHARACTERS = 700;

const SOURCE_NAMES: Record<string, string> = { x: "X", reddit: "Reddit", youtube: "YouTube", linkedin: "LinkedIn" };

export const sourceName = (source: string): string => SOURCE_NAMES[source] ?? source;

export const SENTIMENT_EMOJI: Record<string, string> = { positive: "🟢", neutral: "⚪", negative: "🔴" };

/** "Ada Lovelace (@ada)", or the one of them a source gave. */
export const authorLine = (author: ChatMention["author"] | undefined): string => {
  const shown = authorDisplay({ name: author?.name, handle: author?.handle });
  const line = shown.handle ? `${shown.name} (${shown.handle})` : shown.name;
  return line === "" ? "Someone" : line;
};

/** The first `max` characters (code points, so no emoji is cut in half), with an ellipsis when cut. */
export const clip = (text: string, max: number): string => {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, Math.max(0, max - 1)).join("").trimEnd()}…`;
};

/** The post's words as a message quotes them: white space runs folded (a post's blank lines waste a channel's room), clipped. */
export const excerptOf = (m: ChatMention): string => clip((m.text ?? "").replace(/[ \t]+/g, " ").replace(/\n{3,}/g, "\n\n").trim(), EXCERPT_CHARACTERS);

/** The keywords that matched, with their groups: "acme (My brand), acme corp (My brand)". */
export const keywordLine = (context: ChatContext): string => {
  const groups = new Map((context.groups ?? []).map((g) => [g.id, g.name]));
  return (context.keywords ?? [])
    .map((k) => {
      const group = k.groupId ? groups.get(k.groupId) : undefined;
      return group ? `${k.value} (${group})` : k.value;
    })
    .join(", ");
};

/** "2026-11-28 12:00 UTC": a channel's readers are anywhere, so the zone is said. */
export const publishedLine = (iso: string | undefined): string => {
  const at = iso ? new Date(iso) : undefined;
  return at && !Number.isNaN(at.getTime()) ? `${at.toISOString().slice(0, 16).replace("T", " ")} UTC` : "";
};

/** Only http(s) links are offered as links: anything else in a payload is not followed by a chat client anyway. */
export const isWebLink = (url: string | null | undefined): url is string => typeof url === "string" && /^https?:\/\/\S+$/i.test(url);

/** Who a test message names: the project or the workspace the endpoint serves, and the endpoint. */
export interface TestTarget {
  endpointName: string;
  projectId: string | null;
  workspaceId: string;
}

export const testLine = (t: TestTarget): string =>
  `Earshot test message from ${t.projectId ? `project ${t.projectId}` : `workspace ${t.workspaceId}`} (endpoint "${t.endpointName}"). New mentions will arrive here.`;
