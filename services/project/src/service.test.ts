import {
  baseConfigSchema,
  createGrpcClient,
  createInProcessBus,
  createMailer,
  DomainError,
  type GrpcClientHandle,
  type HostedService,
  hostService,
  loadConfig,
  silentLogger,
} from "@earshot/platform";
import { projectV1 } from "@earshot/proto";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { projectService } from "./service";
import { accountEvent } from "./test-support";

// The project service through a real gRPC hop: hosted as the all-in-one hosts it (embedded store in a
// temp data dir, in-process bus), called with the generated client, fed account events through the bus.

describe("project service over gRPC", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let hosted: HostedService;
  let project: GrpcClientHandle<projectV1.ProjectServiceClient>;
  const bus = createInProcessBus();
  const caller = { userId: "usr_ana", workspaceId: "wsp_ana", email: "ana@example.com", allowances: { projects: 10, seats: 10 } };

  beforeAll(async () => {
    tmp = await makeTempDir();
    const config = loadConfig(baseConfigSchema, { EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: "silent" });
    const logger = silentLogger();
    hosted = await hostService(projectService, {
      config,
      host: "127.0.0.1",
      port: 0,
      bus,
      logger,
      mailer: createMailer({ from: "test@earshot.local", dataDir: tmp.dir, logger }),
    });
    project = createGrpcClient(projectV1.ProjectServiceClient, hosted.address);
  });

  afterAll(async () => {
    project.close();
    await hosted.stop(1000);
    await bus.close();
    await tmp.cleanup();
  });

  const refusal = async (promise: Promise<unknown>): Promise<DomainError> => {
    try {
      await promise;
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
    throw new Error("expected a refusal");
  };

  it("creates and reads a project with the caller's role, times as Dates", async () => {
    const created = await project.client.createProject({ caller, name: "Launch", digestTimezone: "Europe/Paris" });
    expect(created.project).toMatchObject({ name: "Launch", status: "active", digestTimezone: "Europe/Paris", createdAt: expect.any(Date) });
    const read = await project.client.getProject({ caller, projectId: created.project!.id });
    expect(read.project).toMatchObject({ id: created.project!.id, role: "owner" });
  });

  it("delivers field errors, and not_found to a caller outside the project", async () => {
    expect(await refusal(project.client.createProject({ caller, name: "", digestTimezone: "Mars/Olympus" }))).toMatchObject({
      code: "validation_failed",
      errors: expect.arrayContaining([expect.objectContaining({ path: "name" }), expect.objectContaining({ path: "digestTimezone" })]),
    });
    const { project: mine } = await project.client.createProject({ caller, name: "Private" });
    const stranger = { ...caller, userId: "usr_bo", email: "bo@example.com" };
    expect((await refusal(project.client.getProject({ caller: stranger, projectId: mine!.id }))).code).toBe("not_found");
  });

  it("pauses the owner's projects when the account service publishes user.deactivated", async () => {
    const { project: running } = await project.client.createProject({ caller: { ...caller, userId: "usr_cy", email: "cy@example.com" }, name: "Cy's" });
    const event = accountEvent("user.deactivated", "usr_cy", caller.workspaceId);
    // The in-process bus resolves once every subscribed group has handled the message.
    await bus.publish([{ topic: "earshot.account.v1", key: caller.workspaceId, value: JSON.stringify(event), headers: { "ce-id": event.id, "ce-type": event.type } }]);
    const read = await project.client.getProject({ caller: { ...caller, userId: "usr_cy", email: "cy@example.com" }, projectId: running!.id });
    expect(read.project?.status).toBe("paused");
  });
});
