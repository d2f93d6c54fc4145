import { type Answer, type Received, type Receiver, startReceiver } from "./receiver-test-support";

// Fakes of Slack's incoming webhooks and Discord's webhooks for tests, written from the providers'
// documentation rather than from Earshot's renderers: real HTTPS receivers (receiver-test-support.ts) that
// check each request's JSON strictly against the documented shape and limits (a request that breaks one is
// answered as the provider would, 400, and its problems kept for the test to assert empty), answer success
// as the provider does (Slack 200 `ok`, Discord 204 with its X-RateLimit headers), and answer whatever a
// test scripts instead: a 429 with Retry-After / retry_after, a permanent error.

export interface ChatFake {
  receiver: Receiver;
  /** A webhook URL on the fake, shaped like the provider's. */
  url: string;
  /** Every request's parsed body, in arrival order. */
  messages: unknown[];
  /** What broke the documented shape, per request; a test expects none. */
  problems: string[];
  /** The answers to the next requests, in order, before the provider's usual success. */
  script(...answers: Answer[]): void;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const onlyKeys = (where: string, v: Record<string, unknown>, allowed: readonly string[], problems: string[]): void => {
  for (const k of Object.keys(v)) if (!allowed.includes(k)) problems.push(`${where}: unknown key ${k}`);
};

const text = (where: string, v: unknown, max: number, problems: string[]): void => {
  if (typeof v !== "string" || v.length === 0) problems.push(`${where}: must be a non-empty string`);
  else if (v.length > max) problems.push(`${where}: ${v.length} characters, more than ${max}`);
};

/** Slack mrkdwn: `&`, `<`, `>` escaped, except in `<url|label>` links and `<!special>` forms. */
const mrkdwn = (where: string, v: unknown, problems: string[]): void => {
  text(where, v, 3000, problems);
  if (typeof v !== "string") return;
  const outsideLinks = v.replace(/<(https?:\/\/[^|<>\s]+)(\|[^<>]*)?>/g, "");
  if (/[<>]/.test(outsideLinks)) problems.push(`${where}: an unescaped < or >`);
  if (/&(?!amp;|lt;|gt;)/.test(v)) problems.push(`${where}: an unescaped &`);
};

const checkSlack = (body: unknown, problems: string[]): void => {
  if (!isObject(body)) return void problems.push("body: not a JSON object");
  onlyKeys("body", body, ["text", "blocks", "username", "icon_emoji", "icon_url", "mrkdwn", "unfurl_links", "unfurl_media"], problems);
  // text is required beside blocks: it is what notifications show.
  text("text", body.text, 40_000, problems);
  if (body.blocks === undefined) return;
  if (!Array.isArray(body.blocks)) return void problems.push("blocks: not an array");
  if (body.blocks.length > 50) problems.push(`blocks: ${body.blocks.length}, more than 50`);
  body.blocks.forEach((b: unknown, i) => {
    const at = `blocks.${i}`;
    if (!isObject(b)) return void problems.push(`${at}: not an object`);
    if (b.type === "divider") return onlyKeys(at, b, ["type", "block_id"], problems);
    if (b.type === "section") {
      onlyKeys(at, b, ["type", "text", "accessory", "block_id", "fields"], problems);
      if (!isObject(b.text) || !["mrkdwn", "plain_text"].includes(String(b.text.type))) return void problems.push(`${at}.text: not a text object`);
      if (b.text.type === "mrkdwn") mrkdwn(`${at}.text.text`, b.text.text, problems);
      else text(`${at}.text.text`, b.text.text, 3000, problems);
      if (b.accessory !== undefined) {
        const a = b.accessory;
        if (!isObject(a) || a.type !== "button" || !isObject(a.text) || a.text.type !== "plain_text") return void problems.push(`${at}.accessory: not a button`);
        onlyKeys(`${at}.accessory`, a, ["type", "text", "url", "action_id", "value", "style"], problems);
        text(`${at}.accessory.text.text`, a.text.text, 75, problems);
        text(`${at}.accessory.url`, a.url, 3000, problems);
      }
      return;
    }
    if (b.type === "context") {
      onlyKeys(at, b, ["type", "elements", "block_id"], problems);
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10) return void problems.push(`${at}.elements: 1 to 10 wanted`);
      b.elements.forEach((e: unknown, j) => {
        if (!isObject(e) || !["mrkdwn", "plain_text"].includes(String(e.type))) return void problems.push(`${at}.elements.${j}: not a text object`);
        if (e.type === "mrkdwn") mrkdwn(`${at}.elements.${j}.text`, e.text, problems);
        else text(`${at}.elements.${j}.text`, e.text, 3000, problems);
      });
      return;
    }
    problems.push(`${at}: a block type this fake does not expect: ${String(b.type)}`);
  });
};

const EMBED_LIMITS = { title: 256, description: 4096, fieldName: 256, fieldValue: 1024, footer: 2048, authorName: 256 };

const checkDiscord = (body: unknown, problems: string[]): void => {
  if (!isObject(body)) return void problems.push("body: not a JSON object");
  onlyKeys("body", body, ["content", "username", "avatar_url", "tts", "embeds", "allowed_mentions", "flags", "thread_name"], problems);
  if (body.content === undefined && body.embeds === undefined) problems.push("body: content or embeds is required");
  if (body.content !== undefined) text("content", body.content, 2000, problems);
  if (body.embeds === undefined) return;
  if (!Array.isArray(body.embeds)) return void problems.push("embeds: not an array");
  if (body.embeds.length > 10) problems.push(`embeds: ${body.embeds.length}, more than 10`);
  let total = 0;
  const counted = (where: string, v: unknown, max: number): void => {
    text(where, v, max, problems);
    total += String(v).length;
  };
  body.embeds.forEach((e: unknown, i) => {
    const at = `embeds.${i}`;
    if (!isObject(e)) return void problems.push(`${at}: not an object`);
    onlyKeys(at, e, ["title", "type", "description", "url", "timestamp", "color", "footer", "image", "thumbnail", "author", "fields"], problems);
    if (e.title !== undefined) counted(`${at}.title`, e.title, EMBED_LIMITS.title);
    if (e.description !== undefined) counted(`${at}.description`, e.description, EMBED_LIMITS.description);
    if (e.url !== undefined && !/^https?:\/\//.test(String(e.url))) problems.push(`${at}.url: not a URL`);
    if (e.color !== undefined && !(Number.isInteger(e.color) && (e.color as number) >= 0 && (e.color as number) <= 0xffffff)) problems.push(`${at}.color: not an RGB integer`);
    if (e.timestamp !== undefined && Number.isNaN(Date.parse(String(e.timestamp)))) problems.push(`${at}.timestamp: not ISO 8601`);
    if (e.footer !== undefined) {
      if (!isObject(e.footer)) problems.push(`${at}.footer: not an object`);
      else counted(`${at}.footer.text`, e.footer.text, EMBED_LIMITS.footer);
    }
    if (e.author !== undefined) {
      if (!isObject(e.author)) problems.push(`${at}.author: not an object`);
      else {
        onlyKeys(`${at}.author`, e.author, ["name", "url", "icon_url"], problems);
        counted(`${at}.author.name`, e.author.name, EMBED_LIMITS.authorName);
      }
    }
    if (e.fields !== undefined) {
      if (!Array.isArray(e.fields) || e.fields.length > 25) return void problems.push(`${at}.fields: at most 25 wanted`);
      e.fields.forEach((f: unknown, j) => {
        if (!isObject(f)) return void problems.push(`${at}.fields.${j}: not an object`);
        onlyKeys(`${at}.fields.${j}`, f, ["name", "value", "inline"], problems);
        counted(`${at}.fields.${j}.name`, f.name, EMBED_LIMITS.fieldName);
        counted(`${at}.fields.${j}.value`, f.value, EMBED_LIMITS.fieldValue);
        if (f.inline !== undefined && typeof f.inline !== "boolean") problems.push(`${at}.fields.${j}.inline: not a boolean`);
      });
    }
  });
  if (total > 6000) problems.push(`embeds: ${total} characters in all, more than 6000`);
};

const startChatFake = async (
  check: (body: unknown, problems: string[]) => void,
  path: string,
  success: Answer,
  invalid: (problems: string[]) => Answer,
): Promise<ChatFake> => {
  const receiver = await startReceiver();
  const messages: unknown[] = [];
  const problems: string[] = [];
  const scripted: Answer[] = [];
  receiver.answer((r: Received) => {
    let body: unknown;
    const found: string[] = [];
    if (r.headers["content-type"] !== "application/json") found.push(`content-type: ${String(r.headers["content-type"])}`);
    try {
      body = JSON.parse(r.body);
    } catch {
      found.push("body: not JSON");
    }
    if (body !== undefined) check(body, found);
    messages.push(body);
    problems.push(...found.map((p) => `request ${messages.length}: ${p}`));
    const next = scripted.shift();
    if (next) return next;
    return found.length > 0 ? invalid(found) : success;
  });
  return {
    receiver,
    url: `https://localhost:${receiver.port}${path}`,
    messages,
    problems,
    script: (...answers) => void scripted.push(...answers),
    close: () => receiver.close(),
  };
};

/** Slack: 200 `ok`; a refused payload 400 `invalid_payload`. */
export const startSlackFake = (): Promise<ChatFake> =>
  startChatFake(checkSlack, "/services/T0TEST/B0TEST/xoxTestTokenAbcdEfgh1234", { status: 200, body: "ok" }, () => ({ status: 400, body: "invalid_payload" }));

/** Discord: 204 with its bucket's headers; a refused payload 400 with Discord's error body. */
export const startDiscordFake = (): Promise<ChatFake> =>
  startChatFake(
    checkDiscord,
    "/api/webhooks/1234567890/TestToken-abcdefghijklmnopqrstuvwxyz",
    { status: 204, headers: { "x-ratelimit-limit": "5", "x-ratelimit-remaining": "4", "x-ratelimit-reset-after": "0.5", "x-ratelimit-bucket": "test" } },
    (problems) => ({ status: 400, body: JSON.stringify({ message: "Invalid Form Body", code: 50035, errors: problems }), headers: { "content-type": "application/json" } }),
  );

/** Discord's 429, as documented: JSON body with retry_after (seconds, a fraction) and a Retry-After header. */
export const discordRateLimited = (retryAfterSeconds: number): Answer => ({
  status: 429,
  body: JSON.stringify({ message: "You are being rate limited.", retry_after: retryAfterSeconds, global: false }),
  headers: {
    "content-type": "application/json",
    "retry-after": String(Math.ceil(retryAfterSeconds)),
    "x-ratelimit-limit": "5",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-reset-after": String(retryAfterSeconds),
    "x-ratelimit-bucket": "test",
    "x-ratelimit-scope": "user",
  },
});

/** Slack's 429: Retry-After in whole seconds. */
export const slackRateLimited = (retryAfterSeconds: number): Answer => ({ status: 429, body: "rate_limited", headers: { "retry-after": String(retryAfterSeconds) } });
