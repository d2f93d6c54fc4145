import { startSimulators } from "@earshot/simulators";

// Hacker News and GitHub need no credentials, so an all-in-one reads their real public APIs by default.
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
};

export interface OfflineSources {
  settings: Record<string, string>;
  close(): Promise<void>;
}

export const offlineFreeSources = async (env: Record<string, string>): Promise<OfflineSources> => {
  const platforms = (["hackernews", "github"] as const).filter((p) => !env[p === "hackernews" ? "EARSHOT_HACKERNEWS_API_URL" : "EARSHOT_GITHUB_API_URL"]);
  if (platforms.length === 0) return { settings: {}, close: async () => undefined };
  const sims = await startSimulators({ platforms, generate: false });
  return { settings: sims.settings, close: () => sims.close() };
};
