import { CREDENTIALED_PLATFORMS, FREE_PLATFORMS, type RunningSimulators } from "@earshot/simulators";
import type { RunningEarshot } from "./all-in-one";

/**
 * What `make run` prints once Earshot is up. On the first start it says where the owner's credentials
 * are, never the credentials themselves: terminal scrollback, CI logs and log collectors keep stdout.
 */
export const startupBanner = (
  running: Pick<RunningEarshot, "url" | "adminUrl" | "dataDir" | "services" | "bootstrap">,
  simulators?: Pick<RunningSimulators, "origin" | "platforms">,
): string => {
  const lines = [
    "",
    `Earshot is running at ${running.url}  (API: ${running.url}/api/v1, health: ${running.url}/readyz)`,
    `  data: ${running.dataDir}`,
    ...running.services.map((s) => `  ${s.name.padEnd(11)} gRPC ${s.address}`),
    ...(running.adminUrl ? [`  metrics: ${running.adminUrl}/metrics`] : []),
    `  docs: ${running.url}/docs`,
    `  web app: ${running.url}/app (sign in with the owner's email and password)`,
    "",
  ];
  const credentialed = simulators?.platforms.filter((p) => CREDENTIALED_PLATFORMS.includes(p)) ?? [];
  const free = simulators?.platforms.filter((p) => FREE_PLATFORMS.includes(p)) ?? [];
  if (simulators && credentialed.length > 0) {
    lines.push(
      `Simulated sources (no credentials configured): ${credentialed.join(", ")}, served by local simulators at ${simulators.origin}.`,
      "  Mentions they produce are generated. Configure a platform's credentials (README: Sources) to collect from it for real.",
      "",
    );
  }
  if (simulators && free.length > 0) {
    lines.push(`Simulated too (EARSHOT_SIMULATORS=all): ${free.join(", ")}, at ${simulators.origin}. Set EARSHOT_SIMULATORS=auto to read them for real.`, "");
  } else if (simulators) {
    // Without internet these would only report connection errors: say how to keep a demo whole.
    lines.push("Hacker News, Bluesky (its live firehose) and GitHub are read from their public APIs (no key needed). Without internet, set EARSHOT_SIMULATORS=all to simulate them.", "");
  }
  if (running.bootstrap) {
    const file = `${running.dataDir}/bootstrap.json`;
    lines.push(
      `First start: created the owner ${running.bootstrap.email} with an API key holding every scope.`,
      `The key and the owner's password are in ${file} (mode 0600, readable only by you); sign in to ${running.url}/app with the password. Try:`,
      `  curl -H "Authorization: Bearer $(node -p 'require(\"${file}\").apiKey')" ${running.url}/api/v1/projects`,
      "",
    );
  }
  return `${lines.join("\n")}\n`;
};
