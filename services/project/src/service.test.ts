import { ACCOUNT_EVENTS } from "@earshot/account/events";
import { createGrpcClient, type GrpcClientHandle, runWithCaller } from "@earshot/platform";
import { hostServiceForTest, publishedEvent, refusalOf, type ServiceUnderTest } from "@earshot/platform/testing";
import { commonV1, projectV1 } from "@earshot/proto";
import { testCaller } from "../../platform/src/testing/caller";
import { projectService } from "./service";

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
