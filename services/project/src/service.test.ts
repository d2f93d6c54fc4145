import { join } from "node:path";
import { ACCOUNT_EVENTS } from "@earshot/contracts/events";
import {
  baseConfigSchema,
  createGrpcClient,
  createInProcessBus,
  createMailer,
  type GrpcClientHandle,
  hostService,
  loadConfig,
  openEmbeddedStore,
  OUTBOX_COLLECTION,
  type OutboxRecord,
  parseCloudEvent,
  runWithCaller,
  silentLogger,
} from "@earshot/platform";
import { hostServiceForTest, makeTempDir, publishedEvent, refusalOf, type ServiceUnderTest, waitFor } from "@earshot/platform/testing";
import { commonV1, projectV1 } from "@earshot/proto";
import { testCaller } from "../../platform/src/testing/caller";
import { decodeProjectEvent, PROJECT_TOPIC } from "./events";
import { projectService } from "./service";
import { PROJECTS, type ProjectDoc } from "./store";

// The project service through a real gRPC hop: hosted as the all-in-one hosts it (embedded store in a
// temp data dir, in-process bus), called with the generated client, fed account events through the bus.

describe("project service over gRPC", () => {
  let hosted: ServiceUnderTest;
  let project: GrpcClientHandle<projectV1.ProjectServiceClient>;
  const ana = { id: "usr_ana", workspaceId: "wsp_ana", email: "ana@example.com" };
  /** Runs the calls `fn` makes as `user` (the caller travels in call metadata, as the edge sends it). */
  const as = <T>(user: { id: string; workspaceId: string; email: string }, fn: () => Promise<T>): Promise<T> => runWithCaller(testCaller(user), fn);

  beforeAll(async () => {
    hosted = await hostServiceForTest(projectService);
    project = createGrpcClient(projectV1.ProjectServiceClient, hosted.address);
  });

  afterAll(async () => {
    project.close();
    await hosted.stop();
  });


  it("creates and reads a project with the caller's role, times as Dates", async () => {
    const created = await as(ana, () => project.client.createProject({ name: "Launch", digestTimezone: "Europe/Paris" }));
    expect(created.project).toMatchObject({
      name: "Launch",
      status: commonV1.ProjectStatus.PROJECT_STATUS_ACTIVE,
      digestTimezone: "Europe/Paris",
      createdAt: expect.any(Date),
    });
    const read = await as(ana, () => project.client.getProject({ projectId: created.project!.id }));
    expect(read.project).toMatchObject({ id: created.project!.id, role: commonV1.Role.ROLE_OWNER });
  });

  it("delivers field errors, and not_found to a caller outside the project", async () => {
    expect(await refusalOf(as(ana, () => project.client.createProject({ name: "", digestTimezone: "Mars/Olympus" })))).toMatchObject({
      code: "validation_failed",
      errors: expect.arrayContaining([expect.objectContaining({ path: "name" }), expect.objectContaining({ path: "digestTimezone" })]),
    });
    const { project: mine } = await as(ana, () => project.client.createProject({ name: "Private" }));
    const stranger = { ...ana, id: "usr_bo", email: "bo@example.com" };
    expect((await refusalOf(as(stranger, () => project.client.getProject({ projectId: mine!.id })))).code).toBe("not_found");
  });

  it("answers get_usage's projects and seats of a workspace, by those names", async () => {
    const di = { id: "usr_di", workspaceId: "wsp_di", email: "di@example.com" };
    await as(di, () => project.client.createProject({ name: "Di's first" }));
    await as(di, () => project.client.createProject({ name: "Di's second" }));
    const { usage } = await project.client.getWorkspaceUsage({ workspaceId: di.workspaceId });
    expect(usage?.counts).toEqual({ projects: "2", seats: "0" });
  });

  it("pauses the owner's projects when the account service publishes user.deactivated", async () => {
    const cy = { ...ana, id: "usr_cy", email: "cy@example.com" };
    const { project: running } = await as(cy, () => project.client.createProject({ name: "Cy's" }));
    // The in-process bus resolves once every subscribed group has handled the message.
    await hosted.bus.publish([publishedEvent(ACCOUNT_EVENTS, "user.deactivated", { userId: "usr_cy", workspaceId: ana.workspaceId })]);
    const read = await as(cy, () => project.client.getProject({ projectId: running!.id }));
    expect(read.project?.status).toBe(commonV1.ProjectStatus.PROJECT_STATUS_PAUSED);
  });
});

describe("project service start", () => {
  it("announces a dashboard enabled before project.dashboard_changed existed once, and not again on a restart", async () => {
    const tmp = await makeTempDir("earshot-project-");
    const logger = silentLogger();
    const config = loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: "silent" });
    const mailer = createMailer({ from: "test@earshot.local", dataDir: tmp.dir, logger });
    const bus = createInProcessBus();
    const announced: string[] = [];
    const subscription = await bus.subscribe({ groupId: "test.dashboards", topics: [PROJECT_TOPIC] }, async (message) => {
      const event = decodeProjectEvent(parseCloudEvent(message.value)!);
      if (event?.type === "project.dashboard_changed") announced.push(event.data.shareId);
    });
    const storeOfService = () => openEmbeddedStore({ dir: join(tmp.dir, "project") });
    const start = () => hostService(projectService, { config, host: "127.0.0.1", port: 0, bus, logger, mailer });
    try {
      // The project as the service left it before the event existed: enabled, with a share id, never announced.
      const before = await storeOfService();
      const now = new Date();
      await before.collection<ProjectDoc>(PROJECTS).insertOne({
        _id: "prj_old",
        workspaceId: "wsp_old",
        ownerId: "usr_old",
        name: "Old launch",
        description: "",
        color: "#7e47eb",
        icon: "📡",
        enabledSources: ["reddit"],
        status: "active",
        digestTimezone: "UTC",
        publicDashboard: { enabled: true, shareId: "oldShare0001", description: "" },
        createdAt: now,
        updatedAt: now,
      });
      await before.close();

      const first = await start();
      await waitFor(() => announced.length === 1);
      await first.stop(0);
      await (await start()).stop(0);

      const after = await storeOfService();
      const staged = await after.collection<OutboxRecord>(OUTBOX_COLLECTION).find({});
      await after.close();
      expect(staged.map((r) => r.event.type)).toEqual(["project.dashboard_changed"]);
      expect(announced).toEqual(["oldShare0001"]);
    } finally {
      await subscription.stop();
      await bus.close();
      mailer.close();
      await tmp.cleanup();
    }
  });
});
