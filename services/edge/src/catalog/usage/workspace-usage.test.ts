import { SERVICES } from "@earshot/registry";
import type { Backends } from "../../backends";
import { USAGE_LIMITS } from "./resource";
import { USAGE_CONTRIBUTORS, workspaceUsage } from "./workspace-usage";

// get_usage's counts: every service the registry marks as counting usage is asked, all at once, and each
// answers the limits it declares.

/** Backends whose services answer these counts, each call held until `release` so the test sees them all in flight. */
const fakeBackends = (answers: Record<string, Record<string, string>>) => {
  const asked: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const backends = Object.fromEntries(
    Object.entries(answers).map(([name, counts]) => [
      name,
      {
        getWorkspaceUsage: async (req: { workspaceId: string }) => {
          asked.push(`${name}:${req.workspaceId}`);
          await released;
          return { usage: { counts } };
        },
      },
    ]),
  ) as unknown as Backends;
  return { backends, asked, release };
};

describe("workspace usage", () => {
  it("asks every contributing service at once and names each count by its limit", async () => {
    const { backends, asked, release } = fakeBackends({
      project: { projects: "2", seats: "3" },
      keyword: { keywords: "7" },
      mention: { mentionsThisMonth: "41" },
      integration: { linkedinSyncsPerDay: "1" },
      webhook: { webhookDeliveriesPerDay: "5" },
    });
    const counting = workspaceUsage(backends, "wsp_1");
    // Every call is under way before any answers: they run in parallel.
    await new Promise((r) => setImmediate(r));
    expect(asked.sort()).toEqual(["integration:wsp_1", "keyword:wsp_1", "mention:wsp_1", "project:wsp_1", "webhook:wsp_1"]);
    release();
    expect(await counting).toEqual({ projects: 2, seats: 3, keywords: 7, mentionsThisMonth: 41, linkedinSyncsPerDay: 1, webhookDeliveriesPerDay: 5 });
  });

  it("takes only the limits a service declares", async () => {
    const { backends, release } = fakeBackends({ keyword: { keywords: "4", projects: "99" } });
    release();
    expect(await workspaceUsage(backends, "wsp_1", [{ name: "keyword", usage: ["keywords"] }])).toEqual({ keywords: 4 });
  });

  it("fails as the service's fault when a declared count is missing", async () => {
    const { backends, release } = fakeBackends({ project: { projects: "1" } });
    release();
    await expect(workspaceUsage(backends, "wsp_1", [{ name: "project", usage: ["projects", "seats"] }])).rejects.toThrow(/project service answered no usage count of seats/);
  });

  it("is declared in the registry only under limits get_usage reports", () => {
    const declared = USAGE_CONTRIBUTORS.flatMap((s) => s.usage);
    for (const limit of declared) expect(USAGE_LIMITS).toContain(limit);
    // A limit is counted by one service only.
    expect(new Set(declared).size).toBe(declared.length);
    expect(USAGE_CONTRIBUTORS.map((s) => s.name)).toEqual(SERVICES.filter((s) => "usage" in s).map((s) => s.name));
  });
});
