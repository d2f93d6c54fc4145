import { type DiscordMessage, DISCORD_LIMITS, DISCORD_MAX_EMBEDS, DISCORD_MAX_MESSAGE_CHARACTERS, embedCharacters, packDiscord, renderDiscordMention } from "./discord";
import { type ChatMention, EXCERPT_CHARACTERS } from "./mention";
import { chatVerdict, MAX_WAIT_MS, SLACK_INTERVAL_MS } from "./provider";
import { packMessages, renderMentionMessage, renderTestMessage } from "./render";
import { packSlack, renderSlackMention, SLACK_MAX_BLOCKS, SLACK_MAX_TEXT, type SlackMessage } from "./slack";
import { maskedUrl } from "./url";

// The chat renderers against the providers' documented limits, and what their answers mean.

const mention = (over: Partial<ChatMention> = {}): ChatMention => ({
  url: "https://www.reddit.com/r/acme/comments/abc/",
  title: "Acme's new release",
  text: "Loving the new Acme release",
  source: "reddit",
  author: { id: "t2_1", handle: "ada", name: "Ada Lovelace", url: "https://www.reddit.com/user/ada", followers: null },
  publishedAt: "2026-11-28T12:34:56.000Z",
  sentiment: { label: "positive", score: 0.6, method: "lexicon" },
  keywordIds: ["kw_1"],
  ...over,
});
const context = { keywords: [{ id: "kw_1", value: "acme", groupId: "kwg_1" }], groups: [{ id: "kwg_1", name: "My brand" }] };

const sectionText = (m: SlackMessage): string => (m.blocks[0] as { text: { text: string } }).text.text;

describe("Slack", () => {
  it("says who, where, what, the sentiment, the keyword, when, and links the post", () => {
    const m = renderSlackMention(mention(), context);
    expect(m.text).toBe("New mention by Ada Lovelace (@ada) on Reddit: Loving the new Acme release");
    expect(m.blocks[0]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: "*Ada Lovelace (@ada)* on *Reddit*\n*Acme's new release*\nLoving the new Acme release" },
      accessory: { type: "button", text: { type: "plain_text", text: "Open" }, url: "https://www.reddit.com/r/acme/comments/abc/" },
    });
    expect(m.blocks[1]).toEqual({
      type: "context",
      elements: [{ type: "mrkdwn", text: "🟢 Positive · keyword acme (My brand) · 2026-11-28 12:34 UTC · <https://www.reddit.com/r/acme/comments/abc/|View post>" }],
    });
  });

  it("escapes &, < and > so a post cannot ping a channel or forge a link", () => {
    const m = renderSlackMention(mention({ text: "<!channel> Tom & Jerry <https://evil.example|click>", title: null }), context);
    expect(sectionText(m)).toContain("&lt;!channel&gt; Tom &amp; Jerry &lt;https://evil.example|click&gt;");
    expect(m.text).not.toMatch(/<!channel>/);
  });

  it("trims a long post to the excerpt, within a section's 3000 characters even when every character is escaped", () => {
    const long = renderSlackMention(mention({ text: "word ".repeat(2000) }), context);
    expect(sectionText(long).length).toBeLessThanOrEqual(SLACK_MAX_TEXT);
    expect(sectionText(long)).toMatch(/…$/);
    const escaped = renderSlackMention(mention({ text: "&".repeat(5000) }), context);
    expect(sectionText(escaped).length).toBeLessThanOrEqual(SLACK_MAX_TEXT);
    expect(sectionText(escaped)).toMatch(/(&amp;)+…$/);
  });

  it("keeps the context line within 3000 characters however long the link and keywords", () => {
    const keywords = { keywords: Array.from({ length: 200 }, (_, i) => ({ id: `kw_${i}`, value: `keyword number ${i}` })) };
    const m = renderSlackMention(mention({ url: `https://example.com/${"p".repeat(2900)}` }), keywords);
    expect((m.blocks[1] as { elements: Array<{ text: string }> }).elements[0]!.text.length).toBeLessThanOrEqual(SLACK_MAX_TEXT);
  });

  it("joins up to 10 mentions in one message, within 50 blocks, a divider between", () => {
    const each = Array.from({ length: 13 }, (_, i) => renderSlackMention(mention({ text: `post ${i}` }), context));
    const { message, count } = packSlack(each);
    expect(count).toBe(10);
    expect(message.blocks.length).toBeLessThanOrEqual(SLACK_MAX_BLOCKS);
    expect(message.blocks.filter((b) => b.type === "divider")).toHaveLength(9);
    expect(message.text).toMatch(/^10 new mentions\n/);
    expect(message.text.length).toBeLessThanOrEqual(SLACK_MAX_TEXT);
    // Bigger blocks lists stop at 50.
    const fat: SlackMessage = { text: "x", blocks: Array.from({ length: 20 }, () => ({ type: "divider" as const })) };
    expect(packSlack([fat, fat, fat]).count).toBe(2);
    expect(packSlack([fat, fat, fat]).message.blocks).toHaveLength(41);
  });
});

describe("Discord", () => {
  it("makes an embed per mention: author, title linking the post, the text, sentiment color and fields, the time", () => {
    const { embeds } = renderDiscordMention(mention({ sentiment: { label: "negative", score: -0.5, method: "lexicon" } }), context);
    expect(embeds).toEqual([
      {
        title: "Acme's new release",
        url: "https://www.reddit.com/r/acme/comments/abc/",
        description: "Loving the new Acme release",
        color: 0xe01e5a,
        author: { name: "Ada Lovelace (@ada)", url: "https://www.reddit.com/user/ada" },
        fields: [
          { name: "Sentiment", value: "🔴 negative", inline: true },
          { name: "Source", value: "Reddit", inline: true },
          { name: "Keyword", value: "acme (My brand)", inline: true },
        ],
        footer: { text: "Earshot" },
        timestamp: "2026-11-28T12:34:56.000Z",
      },
    ]);
  });

  it("escapes markdown so a post reads as written", () => {
    const { embeds } = renderDiscordMention(mention({ text: "**bold** _it_ [x](https://e.example) `c` > quote" }), context);
    expect(embeds[0]?.description).toBe("\\*\\*bold\\*\\* \\_it\\_ \\[x\\](https://e.example) \\`c\\` \\> quote");
  });

  it("leaves out an empty description, which Discord refuses", () => {
    expect(renderDiscordMention(mention({ text: "  " }), context).embeds[0]).not.toHaveProperty("description");
  });

  it("keeps each text within its limit", () => {
    const { embeds } = renderDiscordMention(mention({ title: "t".repeat(400), text: "*".repeat(9000), author: { id: "a", handle: "h", name: "n".repeat(400), url: null, followers: null } }), context);
    const e = embeds[0]!;
    expect(e.title?.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
    expect(e.author?.name.length).toBeLessThanOrEqual(DISCORD_LIMITS.authorName);
    expect(e.description!.length).toBeLessThanOrEqual(Math.min(DISCORD_LIMITS.description, 2 * EXCERPT_CHARACTERS));
    for (const f of e.fields ?? []) expect(f.value.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
  });

  it("joins at most 10 embeds and 6000 characters in one message", () => {
    const short = Array.from({ length: 12 }, (_, i) => renderDiscordMention(mention({ text: `post ${i}` }), context));
    expect(packDiscord(short).count).toBe(DISCORD_MAX_EMBEDS);
    const long = Array.from({ length: 12 }, () => renderDiscordMention(mention({ text: "*".repeat(EXCERPT_CHARACTERS) }), context));
    const { message, count } = packDiscord(long);
    expect(count).toBeGreaterThan(1);
    expect(count).toBeLessThan(10);
    expect(message.embeds.reduce((n, e) => n + embedCharacters(e), 0)).toBeLessThanOrEqual(DISCORD_MAX_MESSAGE_CHARACTERS);
    // One more would not have fitted.
    expect(message.embeds.reduce((n, e) => n + embedCharacters(e), 0) + embedCharacters(long[count]!.embeds[0]!)).toBeGreaterThan(DISCORD_MAX_MESSAGE_CHARACTERS);
  });
});

describe("stored bodies and their packing", () => {
  it("packs the deliveries' bodies in order and says how many it took", () => {
    const bodies = Array.from({ length: 3 }, (_, i) => renderMentionMessage("discord", mention({ text: `p${i}` }), context));
    const { body, count } = packMessages("discord", bodies);
    expect(count).toBe(3);
    expect((JSON.parse(body) as DiscordMessage).embeds.map((e) => e.description)).toEqual(["p0", "p1", "p2"]);
  });

  it("writes a test message naming the project and the endpoint", () => {
    const slack = JSON.parse(renderTestMessage("slack", { endpointName: "Brand <alerts>", projectId: "prj_1", workspaceId: "wsp_1" })) as SlackMessage;
    expect(slack.text).toBe('Earshot test message from project prj_1 (endpoint "Brand &lt;alerts&gt;"). New mentions will arrive here.');
    const discord = JSON.parse(renderTestMessage("discord", { endpointName: "Hook", projectId: null, workspaceId: "wsp_1" })) as DiscordMessage;
    expect(discord.embeds[0]?.description).toMatch(/^Earshot test message from workspace wsp\\_1/);
  });
});

describe("what the providers' answers mean", () => {
  const result = (statusCode: number, response = "", headers: Record<string, string> = {}) => ({ statusCode, durationMs: 5, response, error: "", headers });

  it("Slack: ok, then a second's pace; 429 waits Retry-After; 400/403/404/410 are permanent; 5xx and no answer retry", () => {
    expect(chatVerdict("slack", result(200, "ok"))).toEqual({ outcome: "ok", waitMs: SLACK_INTERVAL_MS });
    expect(chatVerdict("slack", result(429, "", { "retry-after": "3" }))).toEqual({ outcome: "rate_limited", waitMs: 3000 });
    for (const [code, body] of [[400, "invalid_payload"], [403, "invalid_token"], [404, "no_service"], [410, "channel_is_archived"]] as const) {
      expect(chatVerdict("slack", result(code, body)).outcome).toBe("permanent");
    }
    expect(chatVerdict("slack", result(500, "rollup_error")).outcome).toBe("retry");
    expect(chatVerdict("slack", result(0)).outcome).toBe("retry");
  });

  it("Discord: retry_after from the body first, the bucket's reset when it is empty, 401/404 permanent, waits capped", () => {
    expect(chatVerdict("discord", result(429, '{"message":"You are being rate limited.","retry_after":0.42,"global":false}', { "retry-after": "1" }))).toEqual({
      outcome: "rate_limited",
      waitMs: 420,
    });
    expect(chatVerdict("discord", result(204, "", { "x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "1.5" }))).toEqual({ outcome: "ok", waitMs: 1500 });
    expect(chatVerdict("discord", result(204, "", { "x-ratelimit-remaining": "4", "x-ratelimit-reset-after": "1.5" }))).toEqual({ outcome: "ok", waitMs: 0 });
    expect(chatVerdict("discord", result(404, '{"message":"Unknown Webhook","code":10015}')).outcome).toBe("permanent");
    expect(chatVerdict("discord", result(401)).outcome).toBe("permanent");
    expect(chatVerdict("discord", result(502)).outcome).toBe("retry");
    expect(chatVerdict("discord", result(429, '{"retry_after":999999}')).waitMs).toBe(MAX_WAIT_MS);
  });
});

it("masks a chat URL to its scheme, host and last four characters", () => {
  expect(maskedUrl("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXabcd")).toBe("https://hooks.slack.com/…abcd");
  expect(maskedUrl("https://discord.com/api/webhooks/123/tok-en_Wxyz")).toBe("https://discord.com/…Wxyz");
  expect(maskedUrl("https://localhost:8443/short")).toBe("https://localhost:8443/…");
});
