import {
  authorLine,
  type ChatContext,
  type ChatMention,
  clip,
  excerptOf,
  isWebLink,
  keywordLine,
  publishedLine,
  SENTIMENT_EMOJI,
  sourceName,
  type TestTarget,
  testLine,
} from "./mention";

// Slack incoming-webhook messages (also what Mattermost and Rocket.Chat take): `{ text, blocks }`, `text`
// the notification's fallback, Block Kit blocks for the channel. A mention is a section (author, source,
// title, the post's words, an Open button) and a context line (sentiment, keywords, published time, link);
// mentions due together share one message, a divider between them. Slack's limits: 50 blocks a message,
// 3000 characters a section or context text, `&`, `<` and `>` escaped in mrkdwn (links are `<url|label>`).

export const SLACK_MAX_BLOCKS = 50;
export const SLACK_MAX_TEXT = 3000;
/** Mentions a message holds: 10 of them take 29 blocks, and a longer message is harder to read than two. */
export const SLACK_MAX_MENTIONS = 10;
const FALLBACK_PER_MENTION = 200;

export type SlackBlock =
  | { type: "section"; text: { type: "mrkdwn"; text: string }; accessory?: { type: "button"; text: { type: "plain_text"; text: string }; url: string } }
  | { type: "context"; elements: Array<{ type: "mrkdwn"; text: string }> }
  | { type: "divider" };

export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** Text as mrkdwn shows it literally: `&`, `<`, `>` escaped (so `<!channel>` in a post pings nobody). */
export const escapeMrkdwn = (s: string): string => s.replace(/[&<>]/g, (c) => ESCAPES[c] as string);

/** Escaped, and at most `max` characters once escaped (an entity is never cut). */
const escapedWithin = (s: string, max: number): string => {
  let out = "";
  for (const ch of Array.from(s)) {
    const piece = escapeMrkdwn(ch);
    if (out.length + piece.length > max - 1) return `${out.trimEnd()}…`;
    out += piece;
  }
  return out;
};

/** A link's target inside `<url|label>`: its own `|` and `>` would end it early. */
const linkTarget = (url: string): string => escapeMrkdwn(url).replace(/\|/g, "%7C");

const link = (url: string, label: string): string => `<${linkTarget(url)}|${escapeMrkdwn(label)}>`;

export const renderSlackMention = (m: ChatMention, context: ChatContext): SlackMessage => {
  const author = authorLine(m.author);
  const source = sourceName(m.source);
  const head = `*${escapeMrkdwn(author)}* on *${escapeMrkdwn(source)}*${m.title ? `\n*${escapeMrkdwn(clip(m.title, 200))}*` : ""}`;
  const body = escapedWithin(excerptOf(m), SLACK_MAX_TEXT - head.length - 1);
  const section: SlackBlock = {
    type: "section",
    text: { type: "mrkdwn", text: body ? `${head}\n${body}` : head },
    ...(isWebLink(m.url) && m.url.length <= SLACK_MAX_TEXT ? { accessory: { type: "button", text: { type: "plain_text", text: "Open" }, url: m.url } } : {}),
  };
  const label = m.sentiment?.label ?? "neutral";
  const keywords = keywordLine(context);
  const facts = [
    `${SENTIMENT_EMOJI[label] ?? ""} ${label[0]?.toUpperCase() ?? ""}${label.slice(1)}`.trim(),
    keywords ? `keyword ${escapedWithin(keywords, 1000)}` : "",
    publishedLine(m.publishedAt),
    // With the keywords' 1000, a link this long keeps the line within a context text's 3000.
    isWebLink(m.url) && m.url.length <= 1800 ? link(m.url, "View post") : "",
  ].filter((f) => f !== "");
  const fallback = `New mention by ${author} on ${source}: ${clip(excerptOf(m).replace(/\s+/g, " "), FALLBACK_PER_MENTION)}`;
  return {
    text: escapeMrkdwn(fallback),
    blocks: [section, { type: "context", elements: [{ type: "mrkdwn", text: facts.join(" · ") }] }],
  };
};

export const renderSlackTest = (target: TestTarget): SlackMessage => {
  const line = escapeMrkdwn(testLine(target));
  return { text: line, blocks: [{ type: "section", text: { type: "mrkdwn", text: `:wave: ${line}` } }] };
};

/**
 * As many of `messages` (each one mention's, in order) as one message holds, joined: their blocks with a
 * divider between, their fallbacks on lines of their own. At least one is taken.
 */
export const packSlack = (messages: readonly SlackMessage[]): { message: SlackMessage; count: number } => {
  const blocks: SlackBlock[] = [];
  const texts: string[] = [];
  let count = 0;
  for (const m of messages) {
    const needed = m.blocks.length + (count > 0 ? 1 : 0);
    if (count > 0 && (count >= SLACK_MAX_MENTIONS || blocks.length + needed > SLACK_MAX_BLOCKS)) break;
    if (count > 0) blocks.push({ type: "divider" });
    blocks.push(...m.blocks);
    texts.push(m.text);
    count++;
  }
  const text = count > 1 ? `${count} new mentions\n${texts.join("\n")}` : (texts[0] ?? "");
  return { message: { text: text.length > SLACK_MAX_TEXT ? `${text.slice(0, SLACK_MAX_TEXT - 1).replace(/&[a-z]*$/, "")}…` : text, blocks }, count };
};
