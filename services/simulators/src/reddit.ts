import type { PlatformSimulatorFactory } from "./platform-simulator";
import { SIM_PREFIXES } from "./settings";

// PLACEHOLDER until the reddit simulator is written: answers 501 for everything.
export const redditSimulator: PlatformSimulatorFactory = () => ({
  platform: "reddit",
  prefixes: Object.fromEntries(Object.entries(SIM_PREFIXES).filter(([k]) => k.startsWith("reddit")).map(([, v]) => [v, v])),
  handle: ({ res }) => {
    res.writeHead(501).end();
  },
});
