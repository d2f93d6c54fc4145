import { SERVICES } from "@earshot/registry";
import type { Backends } from "../../backends";
import { presentUsage, USAGE_LIMITS } from "./resource";
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

/** A logger that keeps what was warned. */
const warnings = () => {
  const seen: Array<Record<string, unknown>> = [];
  return { seen, logger: { warn: (fields: Record<string, unknown>) => void seen.push(fields) } as never };
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
    const counting = workspaceUsage(backends, "wsp_1", warnings().logger);
    // Every call is under way before any answers: they run in parallel.
    await new Promise((r) => setImmediate(r));
    expect(asked.sort()).toEqual(["integration:wsp_1", "keyword:wsp_1", "mention:wsp_1", "project:wsp_1", "webhook:wsp_1"]);
    release();
    expect(await counting).toEqual({ counts: { projects: 2, seats: 3, keywords: 7, mentionsThisMonth: 41, linkedinSyncsPerDay: 1, webhookDeliveriesPerDay: 5 }, unavailable: [] });
  });

  it("takes only the limits a service declares", async () => {
    const { backends, release } = fakeBackends({ keyword: { keywords: "4", projects: "99" } });
    release();
    expect(await workspaceUsage(backends, "wsp_1", warnings().logger, [{ name: "keyword", usage: ["keywords"] }])).toEqual({ counts: { keywords: 4 }, unavailable: [] });
  });

  it("reports a declared count a service leaves out or garbles as unavailable, logs it, and answers the rest", async () => {
    const { backends, release } = fakeBackends({ project: { projects: "1", seats: "many" } });
    release();
    const { seen, logger } = warnings();
    const got = await workspaceUsage(backends, "wsp_1", logger, [{ name: "project", usage: ["projects", "seats", "keywords"] }]);
    expect(got).toEqual({ counts: { projects: 1 }, unavailable: ["seats", "keywords"] });
    expect(seen.map((w) => w.limit)).toEqual(["seats", "keywords"]);
    const usage = presentUsage(undefined, got);
    expect(usage.limits.projects).toEqual({ allowance: 0, used: 1, available: true });
    expect(usage.limits.seats).toEqual({ allowance: 0, used: null, available: false });
  });

  it("reports the counts of a service that fails or cannot be reached as unavailable, and answers the others", async () => {
    const { backends, release } = fakeBackends({ keyword: { keywords: "3" } });
    release();
    const failing = { ...backends, project: { getWorkspaceUsage: async () => Promise.reject(new Error("UNAVAILABLE: connection refused")) } } as unknown as Backends;
    const { seen, logger } = warnings();
    const got = await workspaceUsage(failing, "wsp_1", logger, [{ name: "project", usage: ["projects", "seats"] }, { name: "keyword", usage: ["keywords"] }]);
    expect(got).toEqual({ counts: { keywords: 3 }, unavailable: ["projects", "seats"] });
    expect(seen).toEqual([expect.objectContaining({ service: "project" })]);
  });

  it("is declared in the registry only under limits get_usage reports", () => {
    const declared = USAGE_CONTRIBUTORS.flatMap((s) => s.usage);
    for (const limit of declared) expect(USAGE_LIMITS).toContain(limit);
    // A limit is counted by one service only.
    expect(new Set(declared).size).toBe(declared.length);
    expect(USAGE_CONTRIBUTORS.map((s) => s.name)).toEqual(SERVICES.filter((s) => "usage" in s).map((s) => s.name));
  });
});
