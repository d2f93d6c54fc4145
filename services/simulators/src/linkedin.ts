import type { PlatformSimulatorFactory } from "./platform-simulator";
import { SIM_PREFIXES } from "./settings";

// PLACEHOLDER until the linkedin simulator is written: answers 501 for everything.
export const linkedinSimulator: PlatformSimulatorFactory = () => ({
  platform: "linkedin",
  prefixes: Object.fromEntries(Object.entries(SIM_PREFIXES).filter(([k]) => k.startsWith("linkedin")).map(([, v]) => [v, v])),
  handle: ({ res }) => {
    res.writeHead(501).end();
  },
});
