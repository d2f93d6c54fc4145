import { startSimulators } from "@earshot/simulators";

// Hacker News, Bluesky and GitHub need no credentials, so an all-in-one reads their real public APIs by default.
// A test must never reach the internet (nondeterministic, rate limited, or unreachable here), so unless
// the suite points those sources somewhere itself, they are served by simulators that hold no posts until
// a test publishes some: their collectors poll successfully and find nothing of their own accord.

/**
 * For a test that collects nothing (it ingests its posts itself) and starts no simulators: the free
 * sources' first searches fail at once on a closed loopback port instead of reaching the internet.
 */
export const FREE_SOURCES_NOWHERE: Readonly<Record<string, string>> = {
  EARSHOT_HACKERNEWS_API_URL: "http://127.0.0.1:1/api/v1",
  EARSHOT_GITHUB_API_URL: "http://127.0.0.1:1",
  EARSHOT_BLUESKY_JETSTREAM_URL: "ws://127.0.0.1:1/subscribe",
  EARSHOT_BLUESKY_PUBLIC_API_URL: "http://127.0.0.1:1",
};

export interface OfflineSources {
  settings: Record<string, string>;
  close(): Promise<void>;
}

export const offlineFreeSources = async (env: Record<string, string>): Promise<OfflineSources> => {
  const setting = { hackernews: "EARSHOT_HACKERNEWS_API_URL", bluesky: "EARSHOT_BLUESKY_JETSTREAM_URL", github: "EARSHOT_GITHUB_API_URL" } as const;
  const platforms = (["hackernews", "bluesky", "github"] as const).filter((p) => !env[setting[p]]);
  if (platforms.length === 0) return { settings: {}, close: async () => undefined };
  const sims = await startSimulators({ platforms, generate: false });
  return { settings: sims.settings, close: () => sims.close() };
};
