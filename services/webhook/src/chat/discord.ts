import {
  authorLine,
  type ChatContext,
  type ChatMention,
  clip,
  excerptOf,
  isWebLink,
  keywordLine,
  SENTIMENT_EMOJI,
  sourceName,
  type TestTarget,
  testLine,
} from "./mention";

// Discord webhook messages: `{ embeds }`, an embed per mention (author, a title linking to the post, the
// post's words, sentiment, source and keywords as fields, the published time, colored by sentiment).
// Mentions due together share one message. Discord's limits: 10 embeds a message, and per embed a title of
// 256 characters, a description of 4096, 25 fields of 256 (name) and 1024 (value), a footer of 2048, an
// author name of 256; all the texts of a message's embeds together at most 6000. Markdown in what a post
// says is escaped, so it reads as written.

export const DISCORD_MAX_EMBEDS = 10;
export const DISCORD_MAX_MESSAGE_CHARACTERS = 6000;
export const DISCORD_LIMITS = { title: 256, description: 4096, fieldName: 256, fieldValue: 1024, footer: 2048, authorName: 256 } as const;

/** Colors by sentiment (green, grey, red); Earshot's blurple for anything else. */
export const SENTIMENT_COLORS: Record<string, number> = { positive: 0x2eb67d, neutral: 0x9ca3af, negative: 0xe01e5a };
const PLAIN_COLOR = 0x5865f2;

export interface DiscordEmbed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  author?: { name: string; url?: string };
  fields?: Array<{ name: string; value: string; inline?: boolean }>;
  footer?: { text: string };
  timestamp?: string;
}

export interface DiscordMessage {
  embeds: DiscordEmbed[];
}

/**
 * Markdown shown literally: Discord takes a backslash before any punctuation, so every markup character gets
 * one (quotes, headings and lists too, wherever they stand: cheaper than knowing where a line starts).
 */
export const escapeDiscord = (s: string): string => s.replace(/[\\*_~`|[\]<>#-]/g, "\\$&");

/** Escaped and within `max` characters (an escape is never cut from its character). */
const escapedWithin = (s: string, max: number): string => {
  let out = "";
  for (const ch of Array.from(s)) {
    const piece = escapeDiscord(ch);
    if (out.length + piece.length > max - 1) return `${out.trimEnd()}…`;
    out += piece;
  }
  return out;
};

/** The characters Discord counts toward a message's 6000. */
export const embedCharacters = (e: DiscordEmbed): number =>
  (e.title?.length ?? 0) +
  (e.description?.length ?? 0) +
  (e.footer?.text.length ?? 0) +
  (e.author?.name.length ?? 0) +
  (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0);

export const renderDiscordMention = (m: ChatMention, context: ChatContext): DiscordMessage => {
  const label = m.sentiment?.label ?? "neutral";
  const keywords = keywordLine(context);
  const source = sourceName(m.source);
  const embed: DiscordEmbed = {
    title: clip(m.title ? m.title : `Mention on ${source}`, DISCORD_LIMITS.title),
    ...(isWebLink(m.url) ? { url: m.url } : {}),
    // Discord refuses an empty description: a post of no words (a video's title is its text) has none.
    ...(excerptOf(m) ? { description: escapedWithin(excerptOf(m), DISCORD_LIMITS.description) } : {}),
    color: SENTIMENT_COLORS[label] ?? PLAIN_COLOR,
    author: { name: clip(authorLine(m.author), DISCORD_LIMITS.authorName), ...(isWebLink(m.author?.url) ? { url: m.author.url } : {}) },
    fields: [
      { name: "Sentiment", value: `${SENTIMENT_EMOJI[label] ?? ""} ${label}`.trim(), inline: true },
      { name: "Source", value: source, inline: true },
      ...(keywords ? [{ name: "Keyword", value: escapedWithin(keywords, DISCORD_LIMITS.fieldValue), inline: true }] : []),
    ],
    footer: { text: "Earshot" },
    ...(m.publishedAt && !Number.isNaN(Date.parse(m.publishedAt)) ? { timestamp: new Date(m.publishedAt).toISOString() } : {}),
  };
  return { embeds: [embed] };
};

export const renderDiscordTest = (target: TestTarget): DiscordMessage => ({
  embeds: [{ title: "Earshot test message", description: escapeDiscord(testLine(target)), color: PLAIN_COLOR, footer: { text: "Earshot" } }],
});

/** As many of `messages` (each one mention's, in order) as one message holds: 10 embeds, 6000 characters. At least one is taken. */
export const packDiscord = (messages: readonly DiscordMessage[]): { message: DiscordMessage; count: number } => {
  const embeds: DiscordEmbed[] = [];
  let characters = 0;
  let count = 0;
  for (const m of messages) {
    const size = m.embeds.reduce((n, e) => n + embedCharacters(e), 0);
    if (count > 0 && (embeds.length + m.embeds.length > DISCORD_MAX_EMBEDS || characters + size > DISCORD_MAX_MESSAGE_CHARACTERS)) break;
    embeds.push(...m.embeds);
    characters += size;
    count++;
  }
  return { message: { embeds }, count };
};
