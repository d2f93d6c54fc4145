import type { commonV1 } from "@earshot/proto";
import { type RegisteredService, SERVICES } from "@earshot/registry";
import type { Backends } from "../../backends";
import { int } from "../shared/resources";

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

/** Every declared count of the workspace, by limit name. A declared count a service leaves out is its fault. */
export const workspaceUsage = async (
  backends: Backends,
  workspaceId: string,
  contributors: ReadonlyArray<{ name: UsageContributor["name"]; usage: readonly string[] }> = USAGE_CONTRIBUTORS,
): Promise<Record<string, number>> => {
  const answers = await Promise.all(
    contributors.map(async (service) => ({ service, res: await clientOf(backends, service.name).getWorkspaceUsage({ workspaceId }) })),
  );
  const counts: Record<string, number> = {};
  for (const { service, res } of answers) {
    for (const limit of service.usage) {
      const value = res.usage?.counts[limit];
      if (value === undefined) throw new Error(`The ${service.name} service answered no usage count of ${limit}.`);
      counts[limit] = int(value, `${service.name} usage count of ${limit}`);
    }
  }
  return counts;
};
