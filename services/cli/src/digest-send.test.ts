import { ACCOUNT_EVENTS, ALERT_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { newId } from "@earshot/platform";
import { hostServiceForTest, publishedEvent, type ServiceUnderTest } from "@earshot/platform/testing";
import { serviceModules } from "@earshot/registry";
import { runCli } from "./commands";

// `earshot digest send` against a real digest service (hosted in-process, reached over gRPC): it says
// which span it sent, the 24 hours up to now by default, the span of a date's scheduled digest with --date.

describe("earshot digest send", () => {
  let digest: ServiceUnderTest;
  const workspaceId = "wsp_cli_digest";
  const projectId = newId("prj");

  beforeAll(async () => {
    const module = serviceModules().find((m) => m.name === "digest");
    if (!module) throw new Error("no digest service module");
    digest = await hostServiceForTest(module);
    await digest.bus.publish([
      publishedEvent(ACCOUNT_EVENTS, "user.created", { userId: "usr_owner", workspaceId, email: "owner@example.com" }),
      publishedEvent(PROJECT_EVENTS, "project.created", { projectId, workspaceId, ownerId: "usr_owner", name: "Launch", digestTimezone: "UTC" }),
      publishedEvent(ALERT_EVENTS, "alert.created", { alertId: "alr_1", projectId, workspaceId, name: "Daily Digest", active: true, digestEnabled: true, digestHour: 8, isDefault: true, createdAt: "2020-01-01T00:00:00.000Z" }),
    ]);
  });
  afterAll(() => digest?.stop());

  const send = async (...extra: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(["digest", "send", "--project", projectId, "--digest-addr", digest.address, ...extra], { EARSHOT_DATA_DIR: digest.dataDir }, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };

  it("sends the 24 hours up to now and prints that span", async () => {
    const before = Date.now();
    const res = await send();
    expect(res).toMatchObject({ code: 0, err: "" });
    const [, from, to] = /^Sent 1 digest email for prj_\w+ \(0 mentions matched from (\S+) to (\S+)\), marked as a manual send\.$/.exec(res.out) ?? [];
    expect(Date.parse(to as string)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(to as string)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(to as string) - Date.parse(from as string)).toBe(24 * 3_600_000);
  });

  it("sends the span of a date's scheduled digest with --date", async () => {
    const res = await send("--date", "2026-11-20");
    expect(res).toEqual({ code: 0, err: "", out: `Sent 1 digest email for ${projectId} (0 mentions matched from 2026-11-19T08:00:00.000Z to 2026-11-20T08:00:00.000Z), marked as a manual send.` });
  });
});
