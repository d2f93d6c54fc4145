import { LinkedinAuth } from "./linkedin-auth";
import { LinkedinContent } from "./linkedin-content";
import { linkedinRest } from "./linkedin-rest";
import type { PlatformSimulatorFactory } from "./platform-simulator";
import { SIM_PREFIXES } from "./settings";

// LinkedIn: the member-facing OAuth pages under the www base URL (linkedin-auth.ts) and the
// Community Management REST API under the API base URL (linkedin-rest.ts), over the Pages' content
// (linkedin-content.ts).
export const linkedinSimulator: PlatformSimulatorFactory = (world) => {
  const auth = new LinkedinAuth(world, SIM_PREFIXES.linkedinAuth);
  const rest = linkedinRest(world, auth, new LinkedinContent(world));
  return {
    platform: "linkedin",
    prefixes: { [SIM_PREFIXES.linkedinAuth]: "https://www.linkedin.com", [SIM_PREFIXES.linkedinApi]: "https://api.linkedin.com/rest" },
    handle: (request, prefix) => (prefix === SIM_PREFIXES.linkedinAuth ? auth.handle(request) : rest(request)),
  };
};
