import type { PlatformSimulatorFactory } from "./platform-simulator";
import { SIM_PREFIXES } from "./settings";

// PLACEHOLDER until the x simulator is written: answers 501 for everything.
export const xSimulator: PlatformSimulatorFactory = () => ({
  platform: "x",
  prefixes: Object.fromEntries(Object.entries(SIM_PREFIXES).filter(([k]) => k.startsWith("xApi")).map(([, v]) => [v, v])),
  handle: ({ res }) => {
    res.writeHead(501).end();
  },
});
