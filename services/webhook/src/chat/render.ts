import type { ChatFormat } from "../fields";
import { type DiscordMessage, packDiscord, renderDiscordMention, renderDiscordTest } from "./discord";
import type { ChatContext, ChatMention, TestTarget } from "./mention";
import { packSlack, renderSlackMention, renderSlackTest, type SlackMessage } from "./slack";

// Chat messages beside signing: a chat endpoint's delivery holds its mention's message alone, rendered once
// when the delivery is made (so every attempt and redelivery sends the same words, and the delivery log
// shows them); the worker joins the messages due together into one request (`packMessages`).

/** One mention's message, as its delivery's body. */
export const renderMentionMessage = (format: ChatFormat, data: unknown, context: unknown): string => {
  const mention = data as ChatMention;
  const ctx = (context ?? {}) as ChatContext;
  return JSON.stringify(format === "slack" ? renderSlackMention(mention, ctx) : renderDiscordMention(mention, ctx));
};

/** test_webhook's message. */
export const renderTestMessage = (format: ChatFormat, target: TestTarget): string =>
  JSON.stringify(format === "slack" ? renderSlackTest(target) : renderDiscordTest(target));

/**
 * One request's body from the first deliveries' messages (in order): as many as the provider's limits let
 * one message hold, at least one. `count` says how many it took; the rest wait for the next request.
 */
export const packMessages = (format: ChatFormat, bodies: readonly string[]): { body: string; count: number } => {
  const parsed: unknown[] = [];
  for (const b of bodies) {
    try {
      parsed.push(JSON.parse(b));
    } catch {
      break;
    }
  }
  // A body that does not parse (never written by this version) goes alone, as it is.
  if (parsed.length === 0) return { body: bodies[0] ?? "", count: Math.min(1, bodies.length) };
  const packed = format === "slack" ? packSlack(parsed as SlackMessage[]) : packDiscord(parsed as DiscordMessage[]);
  return { body: JSON.stringify(packed.message), count: packed.count };
};
