import type { SimPlatform } from "./platform-simulator";

// Where each simulated platform answers on the simulator server, and the credentials it accepts: what
// the integration service's EARSHOT_* settings become when a platform is simulated.

export const SIM_PREFIXES = {
  xApi: "/x",
  redditApi: "/reddit/oauth",
  redditAuth: "/reddit/www",
  youtubeApi: "/youtube/v3",
  linkedinApi: "/linkedin/api/rest",
  linkedinAuth: "/linkedin/www",
  hackernewsApi: "/hackernews/api/v1",
  blueskyJetstream: "/bluesky/jetstream",
  blueskyPublicApi: "/bluesky/appview",
  githubApi: "/github",
} as const;

export const SIM_CREDENTIALS = {
  xBearerToken: "sim-x-bearer-token",
  redditClientId: "sim-reddit-client",
  redditClientSecret: "sim-reddit-secret",
  youtubeApiKey: "sim-youtube-key",
  linkedinClientId: "sim-linkedin-client",
  linkedinClientSecret: "sim-linkedin-secret",
} as const;

/** The integration service's settings for the given platforms, pointing at a simulator server's origin. */
export const simulatedSettings = (origin: string, platforms: readonly SimPlatform[]): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const p of platforms) {
    if (p === "x") Object.assign(out, { EARSHOT_X_API_URL: origin + SIM_PREFIXES.xApi, EARSHOT_X_BEARER_TOKEN: SIM_CREDENTIALS.xBearerToken });
    if (p === "reddit")
      Object.assign(out, {
        EARSHOT_REDDIT_API_URL: origin + SIM_PREFIXES.redditApi,
        EARSHOT_REDDIT_AUTH_URL: origin + SIM_PREFIXES.redditAuth,
        EARSHOT_REDDIT_CLIENT_ID: SIM_CREDENTIALS.redditClientId,
        EARSHOT_REDDIT_CLIENT_SECRET: SIM_CREDENTIALS.redditClientSecret,
      });
    if (p === "youtube") Object.assign(out, { EARSHOT_YOUTUBE_API_URL: origin + SIM_PREFIXES.youtubeApi, EARSHOT_YOUTUBE_API_KEY: SIM_CREDENTIALS.youtubeApiKey });
    if (p === "linkedin")
      Object.assign(out, {
        EARSHOT_LINKEDIN_API_URL: origin + SIM_PREFIXES.linkedinApi,
        EARSHOT_LINKEDIN_AUTH_URL: origin + SIM_PREFIXES.linkedinAuth,
        EARSHOT_LINKEDIN_CLIENT_ID: SIM_CREDENTIALS.linkedinClientId,
        EARSHOT_LINKEDIN_CLIENT_SECRET: SIM_CREDENTIALS.linkedinClientSecret,
      });
    if (p === "hackernews") out.EARSHOT_HACKERNEWS_API_URL = origin + SIM_PREFIXES.hackernewsApi;
    if (p === "bluesky")
      Object.assign(out, {
        EARSHOT_BLUESKY_JETSTREAM_URL: `${origin.replace(/^http/, "ws")}${SIM_PREFIXES.blueskyJetstream}/subscribe`,
        EARSHOT_BLUESKY_PUBLIC_API_URL: origin + SIM_PREFIXES.blueskyPublicApi,
      });
    // No token: the simulator answers with GitHub's anonymous search limit, as Earshot reads it by default.
    if (p === "github") out.EARSHOT_GITHUB_API_URL = origin + SIM_PREFIXES.githubApi;
  }
  return out;
};
