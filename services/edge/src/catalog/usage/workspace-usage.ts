import type { commonV1 } from "@earshot/proto";
import { type RegisteredService, SERVICES } from "@earshot/registry";
import type { Backends } from "../../backends";
import type { Logger } from "@earshot/platform";

// get_usage's counts come from the services that keep what is counted. A service declares the limits it
// counts in its registry entry (`usage`) and answers GetWorkspaceUsage with a WorkspaceUsage naming them;
// the edge asks every such service at once, so a new one contributes without an edge change.

/** A registry entry that contributes to get_usage. */
export type UsageContributor = Extract<RegisteredService, { usage: readonly string[] }>;

export const USAGE_CONTRIBUTORS: readonly UsageContributor[] = SERVICES.filter((s): s is UsageContributor => "usage" in s);

/** What each contributor's client offers; the compiler holds every contributor to it. */
interface UsageClient {
  getWorkspaceUsage(request: { workspaceId: string }): Promise<{ usage?: commonV1.WorkspaceUsage | undefined }>;
}

const clientOf = (backends: Backends, name: UsageContributor["name"]): UsageClient => backends[name];

/** The counts get_usage could read, and the limits it could not (reported as unavailable, never a 500). */
export interface WorkspaceCounts {
  counts: Record<string, number>;
  unavailable: string[];
}

/**
 * Every declared count of the workspace, by limit name. A count a service leaves out, answers unreadably or
 * cannot give (the service failed or is unreachable) is unavailable and logged; the others still answer.
 */
export const workspaceUsage = async (
  backends: Backends,
  workspaceId: string,
  logger: Pick<Logger, "warn">,
  contributors: ReadonlyArray<{ name: UsageContributor["name"]; usage: readonly string[] }> = USAGE_CONTRIBUTORS,
): Promise<WorkspaceCounts> => {
  const answers = await Promise.all(
    contributors.map(async (service) => {
      try {
        return { service, res: await clientOf(backends, service.name).getWorkspaceUsage({ workspaceId }) };
      } catch (err) {
        logger.warn({ err, service: service.name, limits: service.usage }, "a service could not count get_usage's limits; they are reported unavailable");
        return { service, res: undefined };
      }
    }),
  );
  const counts: Record<string, number> = {};
  const unavailable: string[] = [];
  for (const { service, res } of answers) {
    if (!res) {
      unavailable.push(...service.usage);
      continue;
    }
    for (const limit of service.usage) {
      const value = res.usage?.counts[limit];
      const n = value === undefined ? NaN : Number(value);
      if (Number.isSafeInteger(n) && n >= 0) counts[limit] = n;
      else {
        logger.warn({ service: service.name, limit, answered: value ?? null }, "a service answered no usable count of a get_usage limit; it is reported unavailable");
        unavailable.push(limit);
      }
    }
  }
  return { counts, unavailable };
};
