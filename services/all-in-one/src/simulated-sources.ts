import type { Logger } from "@earshot/platform";
import { type RunningSimulators, type SimPlatform, startSimulators } from "@earshot/simulators";
import type { AllInOneConfig } from "./config";

// `make run` on a machine without provider credentials still shows collection working: every platform
// whose credentials are not configured is served by a local simulator speaking its wire format, and the
// integration service is pointed at it. Configured platforms are never simulated; EARSHOT_SIMULATORS=off
// turns simulation off altogether (those platforms are then simply not polled).

export const platformsWithoutCredentials = (config: AllInOneConfig): SimPlatform[] => {
  const missing: SimPlatform[] = [];
  if (!config.EARSHOT_X_BEARER_TOKEN) missing.push("x");
  if (!config.EARSHOT_REDDIT_CLIENT_ID || !config.EARSHOT_REDDIT_CLIENT_SECRET) missing.push("reddit");
  if (!config.EARSHOT_YOUTUBE_API_KEY) missing.push("youtube");
  if (!config.EARSHOT_LINKEDIN_CLIENT_ID || !config.EARSHOT_LINKEDIN_CLIENT_SECRET) missing.push("linkedin");
  return missing;
};

export interface SimulatedSources {
  config: AllInOneConfig;
  simulators?: RunningSimulators;
  stop(): Promise<void>;
}

export const simulateMissingSources = async (config: AllInOneConfig, logger: Logger): Promise<SimulatedSources> => {
  const platforms = config.EARSHOT_SIMULATORS === "off" ? [] : platformsWithoutCredentials(config);
  if (platforms.length === 0) return { config, stop: async () => undefined };
  const simulators = await startSimulators({ platforms, host: "127.0.0.1", port: config.EARSHOT_SIMULATOR_PORT });
  logger.info({ platforms, url: simulators.origin }, "simulating sources without credentials");
  return {
    config: { ...config, ...simulators.settings, EARSHOT_SIMULATED_SOURCES: platforms.join(",") },
    simulators,
    stop: () => simulators.close(),
  };
};
