import type { Logger } from "@earshot/platform";
import { type RunningSimulators, type SimPlatform, startSimulators } from "@earshot/simulators";
import type { AllInOneConfig } from "./config";

// `make run` on a machine without provider credentials still shows collection working: every platform
// whose credentials are not configured is served by a local simulator speaking its wire format, and the
// integration service is pointed at it. Configured platforms are never simulated; EARSHOT_SIMULATORS=off
// turns simulation off altogether (those platforms are then simply not polled).
//
// Hacker News, Bluesky (its Jetstream firehose and public AppView) and GitHub need no credentials, and
// reading them for real is the point of listening where access is free, so `auto` leaves them on their
// public APIs. `all` simulates them too, for a machine
// without internet (where the real hosts would only show connection errors in source health), demos and
// tests; GitHub stays real when a token is configured, since a token says the operator wants it read.

export const platformsWithoutCredentials = (config: AllInOneConfig): SimPlatform[] => {
  const missing: SimPlatform[] = [];
  if (!config.EARSHOT_X_BEARER_TOKEN) missing.push("x");
  if (!config.EARSHOT_REDDIT_CLIENT_ID || !config.EARSHOT_REDDIT_CLIENT_SECRET) missing.push("reddit");
  if (!config.EARSHOT_YOUTUBE_API_KEY) missing.push("youtube");
  if (!config.EARSHOT_LINKEDIN_CLIENT_ID || !config.EARSHOT_LINKEDIN_CLIENT_SECRET) missing.push("linkedin");
  return missing;
};

/** The platforms EARSHOT_SIMULATORS asks to simulate, given what is configured. */
export const platformsToSimulate = (config: AllInOneConfig): SimPlatform[] => {
  if (config.EARSHOT_SIMULATORS === "off") return [];
  const missing = platformsWithoutCredentials(config);
  if (config.EARSHOT_SIMULATORS !== "all") return missing;
  return [...missing, "hackernews", "bluesky", ...(config.EARSHOT_GITHUB_TOKEN ? [] : (["github"] as const))];
};

export interface SimulatedSources {
  config: AllInOneConfig;
  simulators?: RunningSimulators;
  stop(): Promise<void>;
}

export const simulateMissingSources = async (config: AllInOneConfig, logger: Logger): Promise<SimulatedSources> => {
  const platforms = platformsToSimulate(config);
  if (platforms.length === 0) return { config, stop: async () => undefined };
  const simulators = await startSimulators({ platforms, host: "127.0.0.1", port: config.EARSHOT_SIMULATOR_PORT, streamEveryMs: 5_000 });
  logger.info({ platforms, url: simulators.origin }, "simulating sources");
  return {
    config: { ...config, ...simulators.settings, EARSHOT_SIMULATED_SOURCES: platforms.join(",") },
    simulators,
    stop: () => simulators.close(),
  };
};
