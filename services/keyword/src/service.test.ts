import { createGrpcClient, type GrpcClientHandle, runWithCaller } from "@earshot/platform";
import { hostServiceForTest, publishedEvent, refusalOf, type ServiceUnderTest } from "@earshot/platform/testing";
import { PROJECT_EVENTS } from "@earshot/contracts/events";
import { commonV1, keywordV1 } from "@earshot/proto";
import { testCaller } from "../../platform/src/testing/caller";
import { keywordService } from "./service";

// The keyword service through a real gRPC hop: hosted as the all-in-one hosts it (embedded store in a
// temp data dir, in-process bus), called with the generated client, fed project events through the bus.

describe("keyword service over gRPC", () => {
  let hosted: ServiceUnderTest;
  let keyword: GrpcClientHandle<keywordV1.KeywordServiceClient>;
  const ana = { id: "usr_ana", workspaceId: "wsp_ana", email: "ana@example.com" };
  const projectId = "prj_01JKEYWORDSERVICE000000001";
  const member = (role: commonV1.Role, project = projectId) => testCaller(ana, [{ projectId: project, role, workspaceId: ana.workspaceId }]);
  const as = <T>(caller: commonV1.Caller, fn: () => Promise<T>): Promise<T> => runWithCaller(caller, fn);

  // The in-process bus resolves once every subscribed group has handled the message.
  const projectEvent = (type: string, data: Record<string, unknown>) => hosted.bus.publish([publishedEvent(PROJECT_EVENTS, type, data)]);

  beforeAll(async () => {
    hosted = await hostServiceForTest(keywordService);
    keyword = createGrpcClient(keywordV1.KeywordServiceClient, hosted.address);
    await projectEvent("project.created", { projectId, workspaceId: ana.workspaceId, ownerId: ana.id, name: "Launch" });
  });

  afterAll(async () => {
    keyword.close();
    await hosted.stop();
  });

  const S = commonV1.Source;

  it("creates, reads, updates and deactivates a keyword, enums and optional filters round-tripping", async () => {
    const editor = member(commonV1.Role.ROLE_EDITOR);
    const { keyword: k } = await as(editor, () =>
      keyword.client.createKeyword({
        projectId,
        value: "Acme",
        sources: [S.SOURCE_X, S.SOURCE_YOUTUBE],
        aliases: ["acme corp"],
        excludedTerms: [],
        filters: { languages: ["en"], minFollowers: 0, excludeAuthors: [], subreddits: [], youtubeChannels: [], allOf: [] },
        caseSensitive: false,
      }),
    );
    expect(k).toMatchObject({ value: "Acme", sources: [S.SOURCE_X, S.SOURCE_YOUTUBE], active: true, createdAt: expect.any(Date), deactivatedAt: undefined });
    expect(k?.filters).toMatchObject({ languages: ["en"], minFollowers: 0 });
    const moved = await as(editor, () => keyword.client.updateKeyword({ keywordId: k!.id, aliases: { values: [] }, sources: { sources: [S.SOURCE_REDDIT] } }));
    expect(moved.keyword).toMatchObject({ aliases: [], sources: [S.SOURCE_REDDIT], value: "Acme" });
    const gone = await as(editor, () => keyword.client.deleteKeyword({ keywordId: k!.id }));
    expect(gone.keyword).toMatchObject({ active: false, deactivatedAt: expect.any(Date) });
    const listed = await as(member(commonV1.Role.ROLE_VIEWER), () => keyword.client.listKeywords({ projectId, active: false, limit: 0, cursor: "" }));
    expect(listed.keywords.map((x) => x.id)).toContain(k!.id);
  });

  it("refuses an unknown source enum value naming the field, and a viewer's write as forbidden", async () => {
    const bad = await refusalOf(
      as(member(commonV1.Role.ROLE_EDITOR), () =>
        keyword.client.createKeyword({ projectId, value: "x", sources: [9 as commonV1.Source], aliases: [], excludedTerms: [], filters: undefined, caseSensitive: false }),
      ),
    );
    expect(bad).toMatchObject({ code: "validation_failed", errors: [{ path: "sources.0" }] });
    const weak = await refusalOf(
      as(member(commonV1.Role.ROLE_VIEWER), () => keyword.client.createKeywordGroup({ projectId, name: "Press" })),
    );
    expect(weak.code).toBe("forbidden");
  });

  it("lists the default groups made from project.created, and none of the keywords of a paused project as collectable", async () => {
    const groups = await as(member(commonV1.Role.ROLE_VIEWER), () => keyword.client.listKeywordGroups({ projectId, limit: 0, cursor: "" }));
    expect(groups.groups.slice(0, 2).map((g) => [g.name, g.isDefault])).toEqual([
      ["My brand", true],
      ["Competitors", true],
    ]);
    await as(member(commonV1.Role.ROLE_EDITOR), () =>
      keyword.client.createKeyword({ projectId, value: "Globex", sources: [S.SOURCE_X], aliases: [], excludedTerms: [], filters: undefined, caseSensitive: false }),
    );
    const live = await keyword.client.listCollectableKeywords({ projectId, limit: 0, cursor: "" });
    expect(live.collecting).toBe(true);
    expect(live.keywords.map((k) => k.value)).toContain("Globex");
    await projectEvent("project.updated", { projectId, workspaceId: ana.workspaceId, fields: ["status"], status: "paused" });
    expect(await keyword.client.listCollectableKeywords({ projectId, limit: 0, cursor: "" })).toEqual({ keywords: [], nextCursor: "", collecting: false });
    await projectEvent("project.updated", { projectId, workspaceId: ana.workspaceId, fields: ["status"], status: "active" });
    expect((await keyword.client.listCollectableKeywords({ projectId, limit: 0, cursor: "" })).collecting).toBe(true);
    expect(Number((await keyword.client.getWorkspaceUsage({ workspaceId: ana.workspaceId })).usage?.counts.keywords)).toBeGreaterThan(0);
  });
});
