import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ACCOUNT_EVENTS, ALERT_EVENTS, MENTION_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { createGrpcClient, type GrpcClientHandle } from "@earshot/platform";
import { hostServiceForTest, publishedEvent, type ServiceUnderTest } from "@earshot/platform/testing";
import { digestV1 } from "@earshot/proto";
import { digestService } from "./service";

// The digest service as it is hosted: its declared consumers fed the owner, the project, its Daily Digest
// rule and a mention through the in-process bus (which resolves once every group has handled them), then
// the operators' SendDigest over a real gRPC hop, the email written where the mailer keeps it.

describe("digest service over gRPC", () => {
  let hosted: ServiceUnderTest;
  let digest: GrpcClientHandle<digestV1.DigestServiceClient>;
  const workspaceId = "wsp_digest";
  const projectId = "prj_01JDIGESTSERVICE000000001";
  // A fixed day, so what the digest covers does not depend on when the test runs: the Daily Digest of
  // 2026-11-20 (8 AM UTC) covers the 24 hours before it, where this mention was matched.
  const matched = "2026-11-19T12:00:00.000Z";

  beforeAll(async () => {
    hosted = await hostServiceForTest(digestService);
    digest = createGrpcClient(digestV1.DigestServiceClient, hosted.address);
    await hosted.bus.publish([
      publishedEvent(ACCOUNT_EVENTS, "user.created", { userId: "usr_owner", workspaceId, email: "owner@example.com" }),
      publishedEvent(PROJECT_EVENTS, "project.created", { projectId, workspaceId, ownerId: "usr_owner", name: "Launch", digestTimezone: "UTC" }),
      publishedEvent(ALERT_EVENTS, "alert.created", { alertId: "alr_1", projectId, workspaceId, name: "Daily Digest", active: true, digestEnabled: true, digestHour: 8, isDefault: true, createdAt: "2020-01-01T00:00:00.000Z" }),
      publishedEvent(MENTION_EVENTS, "mention.created", {
        projectId, workspaceId, keywords: [{ keywordId: "kw_1", value: "Launch" }],
        mention: {
          id: "men_1", projectId, source: "SOURCE_REDDIT", sourceId: "t3_1", url: "https://reddit.example/r/1", text: "Launch looks great", author: { id: "t2_ana", handle: "ana", name: "Ana" },
          publishedAt: matched, collectedAt: matched, matchedAt: matched, updatedAt: matched, keywordIds: ["kw_1"], groupIds: [], sentiment: { label: "positive", score: 0.5, method: "lexicon" }, status: "MENTION_STATUS_OPEN",
        },
      }),
    ]);
  });

  afterAll(async () => {
    digest.close();
    await hosted.stop();
  });

  it("sends a project's digest now to the workspace owner, listing the mention its consumers kept", async () => {
    const sent = await digest.client.sendDigest({ projectId, localDate: "2026-11-20" });
    expect(sent).toEqual({ emailsSent: 1, mentions: 1, windowStart: new Date("2026-11-19T08:00:00.000Z"), windowEnd: new Date("2026-11-20T08:00:00.000Z") });
    const mailDir = join(hosted.dataDir, "mail");
    const [file] = await readdir(mailDir);
    const eml = await readFile(join(mailDir, file as string), "utf8");
    expect(eml).toMatch(/^To: owner@example\.com/m);
    expect(eml).toContain("Launch looks great");
  });

  it("without a date, sends the 24 hours up to now and says so", async () => {
    const before = Date.now();
    const sent = await digest.client.sendDigest({ projectId, localDate: "" });
    expect(sent).toMatchObject({ emailsSent: 1, mentions: 0 });
    const end = sent.windowEnd?.getTime() ?? 0;
    expect(end).toBeGreaterThanOrEqual(before);
    expect(end).toBeLessThanOrEqual(Date.now());
    expect(end - (sent.windowStart?.getTime() ?? 0)).toBe(24 * 3_600_000);
  });

  it("sends nothing for a project it never heard of", async () => {
    expect(await digest.client.sendDigest({ projectId: "prj_01JDIGESTSERVICEUNKNOWN01", localDate: "2026-11-20" })).toEqual({ emailsSent: 0, mentions: 0 });
  });
});
