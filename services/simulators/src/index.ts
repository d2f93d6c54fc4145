import { blueskySimulator } from "./bluesky";
import { githubSimulator } from "./github";
import { hackernewsSimulator } from "./hackernews";
import { linkedinSimulator } from "./linkedin";
import { SIM_PLATFORMS, type SimPlatform } from "./platform-simulator";
import { redditSimulator } from "./reddit";
import { type SimulatorOptions, type SimulatorServer, startSimulatorServer } from "./server";
import { simulatedSettings } from "./settings";
import { xSimulator } from "./x";
import { youtubeSimulatorWith } from "./youtube";

export type { BlueskySimulator } from "./bluesky";
export type { PlatformSimulator, SimPlatform } from "./platform-simulator";
export { CREDENTIALED_PLATFORMS, FREE_PLATFORMS, SIM_PLATFORMS } from "./platform-simulator";
export type { SimulatorServer } from "./server";
export { SIM_CREDENTIALS, SIM_PREFIXES, simulatedSettings } from "./settings";
export type { Fault, LoggedRequest, PublishInput, SimAuthor, SimPost } from "./world";
export { SimWorld } from "./world";
export { youtubeChannelIdOf, youtubeCommentId, youtubeVideoId } from "./youtube-ids";
export { SIM_LINKEDIN_MEMBERS, SIM_LINKEDIN_ORGANIZATIONS, type SimLinkedinMember, type SimLinkedinOrganization } from "./linkedin-members";

export interface RunningSimulators extends SimulatorServer {
  platforms: readonly SimPlatform[];
  /** EARSHOT_* settings pointing the integration service at these simulators. */
  settings: Record<string, string>;
}

/** Starts the simulators of the given platforms (default all seven) on one loopback HTTP server. */
export const startSimulators = async (options: Omit<SimulatorOptions, "factories"> & { youtubeDailyQuota?: number } = {}): Promise<RunningSimulators> => {
  const platforms = options.platforms ?? SIM_PLATFORMS;
  const server = await startSimulatorServer({
    ...options,
    platforms,
    factories: {
      x: xSimulator,
      reddit: redditSimulator,
      youtube: youtubeSimulatorWith({ dailyQuota: options.youtubeDailyQuota }),
      linkedin: linkedinSimulator,
      hackernews: hackernewsSimulator,
      bluesky: blueskySimulator,
      github: githubSimulator,
    },
  });
  return { ...server, platforms, settings: simulatedSettings(server.origin, platforms) };
};
