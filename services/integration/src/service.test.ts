import { KEYWORD_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { type CloudEvent, createGrpcClient, type EventCatalog, type EventMessages, type GrpcClientHandle, runWithCaller, type Subscription } from "@earshot/platform";
import { hostServiceForTest, publishedEvent, refusalOf, type ServiceUnderTest, testCaller, waitFor } from "@earshot/platform/testing";
import { commonV1, integrationV1 } from "@earshot/proto";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { INTEGRATION_EVENTS } from "./events";
import { integrationService } from "./service";

// The integration service through a real gRPC hop: hosted as the all-in-one hosts it (embedded store in a
// temp data dir, in-process bus), pointed at the LinkedIn simulator, called with the generated client,
// fed project and keyword events through the bus, its own events read back from the bus.

const ACME = "urn:li:organization:1001";
const REDIRECT = "http://127.0.0.1:9/integrations/linkedin/callback";

describe("integration service over gRPC", () => {
  let sims: RunningSimulators;
  let hosted: ServiceUnderTest;
  let integration: GrpcClientHandle<integrationV1.IntegrationServiceClient>;
  let listening: Subscription;
  const published: CloudEvent[] = [];
  const ana = { id: "usr_ana", workspaceId: "wsp_ana", email: "ana@example.com" };
  const projectId = "prj_01JINTEGRATIONSERVICE0001";
  const as = (role: commonV1.Role) => testCaller(ana, [{ projectId, role, workspaceId: ana.workspaceId }]);
  const owner = as(commonV1.Role.ROLE_OWNER);
  const call = <T>(caller: commonV1.Caller, fn: () => Promise<T>): Promise<T> => runWithCaller(caller, fn);

  /** Publishes an event as its service would; the in-process bus resolves once every group has handled it. */
  const publish = async <M extends EventMessages>(catalog: EventCatalog<M>, type: string, data: object) => {
    await hosted.bus.publish([publishedEvent(catalog, type, data)]);
  };
  const publishedOf = async (type: string, count = 1): Promise<CloudEvent[]> => {
    await waitFor(() => published.filter((e) => e.type === type).length >= count, 10_000);
    return published.filter((e) => e.type === type);
  };

  beforeAll(async () => {
    sims = await startSimulators({ platforms: ["linkedin"], generate: false });
    // A day between polls: after the LinkedIn poller's first poll, only syncs call LinkedIn.
    hosted = await hostServiceForTest(integrationService, { settings: { ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: "86400" } });
    integration = createGrpcClient(integrationV1.IntegrationServiceClient, hosted.address);
    listening = await hosted.bus.subscribe({ groupId: "test.integration-events", topics: [INTEGRATION_EVENTS.topic] }, async (m) => {
      published.push(JSON.parse(m.value) as CloudEvent);
    });
    await publish(PROJECT_EVENTS, "project.created", {
      projectId,
      workspaceId: ana.workspaceId,
      ownerId: ana.id,
      name: "Launch",
      digestTimezone: "UTC",
      enabledSources: ["x", "reddit", "youtube", "linkedin"],
    });
  }, 30_000);

  afterAll(async () => {
    await listening?.stop();
    integration?.close();
    await hosted?.stop();
    await sims?.close();
  });

  it("reports each source's health to a member in the API's order, and refuses a non-member as not_found", async () => {
    const { sources } = await call(as(commonV1.Role.ROLE_VIEWER), () => integration.client.getSourceHealth({ projectId }));
    const S = commonV1.Source;
    expect(sources.map((s) => [s.source, s.state])).toEqual([
      [S.SOURCE_X, "idle"],
      [S.SOURCE_REDDIT, "idle"],
      [S.SOURCE_YOUTUBE, "idle"],
      [S.SOURCE_LINKEDIN, "idle"],
      [S.SOURCE_HACKERNEWS, "idle"],
      [S.SOURCE_BLUESKY, "idle"],
      [S.SOURCE_RSS, "idle"],
      [S.SOURCE_GITHUB, "idle"],
    ]);
    expect(sources[3]).toMatchObject({ simulated: false, postsLast24h: "0", lastSuccessAt: undefined });
    const stranger = testCaller({ id: "usr_eve", workspaceId: "wsp_eve", email: "eve@example.com" });
    expect(await refusalOf(call(stranger, () => integration.client.getSourceHealth({ projectId })))).toMatchObject({ code: "not_found" });
  });

  it("connects a Page through LinkedIn's authorization, polls and syncs it onto the bus, and meters the sync", async () => {
    const { url, expiresAt } = await call(owner, () => integration.client.getLinkedinConnectUrl({ projectId, redirectUri: REDIRECT }));
    expect(expiresAt).toBeInstanceOf(Date);
    // The owner's browser at LinkedIn: member-a (who administers Acme Corp) allows.
    const target = new URL(url);
    const form = new URLSearchParams(target.searchParams);
    form.set("member", "member-a");
    form.set("action", "allow");
    const decided = await fetch(`${target.origin}${target.pathname}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
    const back = new URL(decided.headers.get("location") ?? "").searchParams;
    const done = await integration.client.completeLinkedinAuthorization({ state: back.get("state") ?? "", code: back.get("code") ?? "", error: "", errorDescription: "" });
    expect(done).toMatchObject({ projectId, integration: { status: integrationV1.LinkedinStatus.LINKEDIN_STATUS_PENDING_PAGE, page: undefined, pages: expect.arrayContaining([{ organizationUrn: ACME, name: "Acme Corp" }]) } });
    expect(done.integration?.tokenExpiresAt).toBeInstanceOf(Date);

    const editor = as(commonV1.Role.ROLE_EDITOR);
    expect(await refusalOf(call(editor, () => integration.client.selectLinkedinPage({ projectId, organizationUrn: ACME })))).toMatchObject({ code: "forbidden" });
    expect(await refusalOf(call(owner, () => integration.client.selectLinkedinPage({ projectId, organizationUrn: "" })))).toMatchObject({
      code: "validation_failed",
      errors: [{ path: "organizationUrn" }],
    });

    const selected = await call(owner, () => integration.client.selectLinkedinPage({ projectId, organizationUrn: ACME }));
    expect(selected.integration).toMatchObject({ status: integrationV1.LinkedinStatus.LINKEDIN_STATUS_CONNECTED, page: { organizationUrn: ACME, name: "Acme Corp" }, connectedAt: expect.any(Date) });
    expect((await publishedOf("integration.linkedin.connected"))[0]).toMatchObject({ source: "earshot/integration", data: { projectId, workspaceId: ana.workspaceId, organizationUrn: ACME } });

    // A post at LinkedIn, then the project's first keyword on LinkedIn: its event starts the poller at once,
    // and that first poll finds the post.
    sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme Corp ships zephyr widgets today", createdAtMs: Date.now() - 60_000 });
    await publish(KEYWORD_EVENTS, "keyword.created", {
      keywordId: "kw_01JINTEGRATIONSERVICE0001",
      projectId,
      workspaceId: ana.workspaceId,
      groupId: "kwg_brand",
      value: "zephyr widgets",
      sources: ["linkedin"],
      aliases: [],
      excludedTerms: [],
      filters: {},
      caseSensitive: false,
      active: true,
    });
    const [post] = await publishedOf("post.collected");
    expect(post?.data).toMatchObject({ projectId, source: "linkedin", text: expect.stringContaining("zephyr widgets") });

    // That poll committed (and released its lease) with its post: the sync runs at once and finds nothing new.
    const synced = await call(owner, () => integration.client.syncLinkedin({ projectId }));
    expect(synced).toMatchObject({ postsFound: 0, integration: { status: integrationV1.LinkedinStatus.LINKEDIN_STATUS_CONNECTED, lastSyncAt: expect.any(Date), syncsPerDay: 20, syncsLeftToday: 19 } });
    expect((await publishedOf("integration.linkedin.synced"))[0]?.data).toMatchObject({ projectId, postsFound: 0 });
    expect(await integration.client.getWorkspaceUsage({ workspaceId: ana.workspaceId })).toEqual({ usage: { counts: { linkedinSyncsPerDay: "1" } } });

    const gone = await call(owner, () => integration.client.disconnectLinkedin({ projectId }));
    expect(gone.integration).toMatchObject({ status: integrationV1.LinkedinStatus.LINKEDIN_STATUS_DISCONNECTED, pages: [], page: undefined, tokenExpiresAt: undefined });
    expect((await publishedOf("integration.linkedin.disconnected"))[0]?.data).toMatchObject({ projectId, reason: "disconnected" });
  });
});
