import type { DigestDeps } from "./deps";
import { runDigests } from "./digests";
import { runInstantAlerts } from "./instant";

// One tick of the schedule: the digests now due and the instant alerts now allowed. The service runs it
// every EARSHOT_DIGEST_TICK_SECONDS; tests run it after moving their clock. Every replica ticks; the
// claims in the store decide which one sends.

export const tick = async (deps: DigestDeps) => {
  const digests = await runDigests(deps);
  const instant = await runInstantAlerts(deps);
  return { digestsSent: digests.sent, digestsSkipped: digests.skipped, instantSent: instant.sent };
};
