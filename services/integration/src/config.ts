import { ALLOW_PRIVATE_NETWORKS_SETTING, ENCRYPTION_KEY_SETTING, MAIL_SIGNING_SETTINGS, publicUrlSetting, secret } from "@earshot/platform";
import { z } from "zod";

// The integration service's settings (DESIGN.md "Collection"). The URLs default to the real platforms;
// the paths of each platform's API are appended to them. A platform without credentials is not polled
// (its source reports idle); `make run` points such platforms at the local simulators instead. The
// service module declares them (`settings`): the hosts load them and the deployment files list them, the
// secret ones in the Secret.

const url = z.string().url().transform((u) => u.replace(/\/+$/, ""));
const optionalSecret = secret(z.string().min(1).optional());

export const integrationSettingsShape = {
  // It mails the workspace owner about a feed failing for two days.
  ...MAIL_SIGNING_SETTINGS,
  /** The origin that mail links to (the edge's setting, read here for the failing feed's mail). */
  EARSHOT_PUBLIC_URL: publicUrlSetting,
  EARSHOT_X_API_URL: url.default("https://api.x.com"),
  EARSHOT_X_BEARER_TOKEN: optionalSecret,
  EARSHOT_REDDIT_API_URL: url.default("https://oauth.reddit.com"),
  EARSHOT_REDDIT_AUTH_URL: url.default("https://www.reddit.com"),
  EARSHOT_REDDIT_CLIENT_ID: optionalSecret,
  EARSHOT_REDDIT_CLIENT_SECRET: optionalSecret,
  /** Reddit requires `<platform>:<app id>:<version> (by /u/<user>)`. */
  EARSHOT_REDDIT_USER_AGENT: z.string().min(1).default("server:earshot:0.1.0 (by /u/earshot)"),
  /** The Algolia Hacker News Search API; it needs no key, so Hacker News is always reachable. */
  EARSHOT_HACKERNEWS_API_URL: url.default("https://hn.algolia.com/api/v1"),
  /** Bluesky's public firehose, posts only; it needs no account. */
  EARSHOT_BLUESKY_JETSTREAM_URL: url.default("wss://jetstream2.us-east.bsky.network/subscribe"),
  /** Where Earshot signs in and searches (a PDS, which forwards searchPosts to the AppView); only with an app password. */
  EARSHOT_BLUESKY_API_URL: url.default("https://bsky.social"),
  /** Bluesky's public AppView: authors' handles and names (getProfiles), no account needed. */
  EARSHOT_BLUESKY_PUBLIC_API_URL: url.default("https://public.api.bsky.app"),
  /** Optional, with the app password: turns on the search of a new keyword 24 h back (backfill). */
  EARSHOT_BLUESKY_IDENTIFIER: z.string().min(1).optional(),
  /** An app password (Settings, Privacy and security, App passwords), never the account's password. */
  EARSHOT_BLUESKY_APP_PASSWORD: optionalSecret,
  /** Largest feed document read, in bytes: a bigger one is refused at the bound, not read whole. */
  EARSHOT_FEED_MAX_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(5 * 1024 * 1024),
  /**
   * `true` lets feeds (like webhook endpoints) be fetched from loopback, private and other non-public
   * addresses, and over plain http there: tests and closed networks only. The webhook service reads the same setting.
   */
  EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: ALLOW_PRIVATE_NETWORKS_SETTING,
  EARSHOT_GITHUB_API_URL: url.default("https://api.github.com"),
  /** Optional: without it GitHub allows 10 search requests a minute, with it 30. */
  EARSHOT_GITHUB_TOKEN: optionalSecret,
  EARSHOT_YOUTUBE_API_URL: url.default("https://www.googleapis.com/youtube/v3"),
  EARSHOT_YOUTUBE_API_KEY: optionalSecret,
  /** Quota units a day the YouTube key may spend (search.list costs 100). */
  EARSHOT_YOUTUBE_DAILY_QUOTA: z.coerce.number().int().min(0).default(10_000),
  EARSHOT_LINKEDIN_API_URL: url.default("https://api.linkedin.com/rest"),
  EARSHOT_LINKEDIN_AUTH_URL: url.default("https://www.linkedin.com"),
  EARSHOT_LINKEDIN_CLIENT_ID: optionalSecret,
  EARSHOT_LINKEDIN_CLIENT_SECRET: optionalSecret,
  /** The `LinkedIn-Version` header (YYYYMM). */
  EARSHOT_LINKEDIN_VERSION: z.string().regex(/^\d{6}$/).default("202510"),
  EARSHOT_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(86_400).default(300),
  /**
   * How far back a new or changed keyword's first search looks, in hours (it runs at once, not at the next
   * poll). Each platform caps it at what its search reaches: X's recent search 7 days, LinkedIn 60 days.
   */
  EARSHOT_FIRST_SEARCH_LOOKBACK_HOURS: z.coerce.number().gt(0).max(720).default(24),
  /** 32 bytes, base64 or hex: the AES-256-GCM key of stored provider tokens. Generated into the data dir on the embedded default. */
  EARSHOT_ENCRYPTION_KEY: ENCRYPTION_KEY_SETTING,
  /** Comma-separated sources served by local simulators (set by the all-in-one); reported by get_source_health. */
  EARSHOT_SIMULATED_SOURCES: z.string().default(""),
};

export const integrationSettingsSchema = z.object(integrationSettingsShape);
export type IntegrationSettings = z.infer<typeof integrationSettingsSchema>;

/** The settings out of a host's configuration object (defaults fill what it leaves out). */
export const integrationSettingsOf = (config: unknown): IntegrationSettings => integrationSettingsSchema.parse(config ?? {});
