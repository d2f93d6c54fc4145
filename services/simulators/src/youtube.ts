import type { PlatformSimulatorFactory } from "./platform-simulator";
import { SIM_PREFIXES } from "./settings";

// PLACEHOLDER until the youtube simulator is written: answers 501 for everything.
export const youtubeSimulator: PlatformSimulatorFactory = () => ({
  platform: "youtube",
  prefixes: Object.fromEntries(Object.entries(SIM_PREFIXES).filter(([k]) => k.startsWith("youtube")).map(([, v]) => [v, v])),
  handle: ({ res }) => {
    res.writeHead(501).end();
  },
});
