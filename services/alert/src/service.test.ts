import { createGrpcClient, type GrpcClientHandle, runWithCaller } from "@earshot/platform";
import { hostServiceForTest, publishedEvent, refusalOf, type ServiceUnderTest, testCaller } from "@earshot/platform/testing";
import { PROJECT_EVENTS } from "@earshot/contracts/events";
import { alertV1, commonV1 } from "@earshot/proto";
import { alertService } from "./service";

// The alert service through a real gRPC hop: hosted as the all-in-one hosts it, its declared consumer fed
// project events through the in-process bus (which resolves once every group has handled them).

describe("alert service over gRPC", () => {
  let hosted: ServiceUnderTest;
  let alert: GrpcClientHandle<alertV1.AlertServiceClient>;
  const ana = { id: "usr_ana", workspaceId: "wsp_ana", email: "ana@example.com" };
  const projectId = "prj_01JALERTSERVICE0000000001";
  const member = (role: commonV1.Role, project = projectId) => testCaller(ana, [{ projectId: project, role, workspaceId: ana.workspaceId }]);
  const as = <T>(caller: commonV1.Caller, fn: () => Promise<T>): Promise<T> => runWithCaller(caller, fn);
  const list = (caller: commonV1.Caller, project = projectId) => as(caller, () => alert.client.listAlerts({ projectId: project, limit: 0, cursor: "" }));

  beforeAll(async () => {
    hosted = await hostServiceForTest(alertService);
    alert = createGrpcClient(alertV1.AlertServiceClient, hosted.address);
    await hosted.bus.publish([publishedEvent(PROJECT_EVENTS, "project.created", { projectId, workspaceId: ana.workspaceId, ownerId: ana.id, name: "Launch" })]);
  });

  afterAll(async () => {
    alert.close();
    await hosted.stop();
  });

  it("gives a project its Daily Digest from project.created, and an editor's rule beside it", async () => {
    expect((await list(member(commonV1.Role.ROLE_VIEWER))).alerts.map((a) => a.name)).toEqual(["Daily Digest"]);
    const made = await as(member(commonV1.Role.ROLE_EDITOR), () =>
      alert.client.createAlert({ projectId, name: "Complaints", instant: true, channels: { channels: [{ type: "email" }] } } as alertV1.CreateAlertRequest),
    );
    expect(made.alert).toMatchObject({ name: "Complaints", instant: true, active: true });
    expect((await list(member(commonV1.Role.ROLE_VIEWER))).alerts.map((a) => a.name).sort()).toEqual(["Complaints", "Daily Digest"]);
  });

  it("refuses a viewer's rule as forbidden, and another project's list as not found", async () => {
    const refused = await refusalOf(as(member(commonV1.Role.ROLE_VIEWER), () => alert.client.createAlert({ projectId, name: "Nope" } as alertV1.CreateAlertRequest)));
    expect(refused).toMatchObject({ code: "forbidden" });
    expect(await refusalOf(list(member(commonV1.Role.ROLE_OWNER, "prj_01JALERTSERVICEOTHER00001"), projectId))).toMatchObject({ code: "not_found" });
  });

  it("stops a project's rules when the project is archived", async () => {
    await hosted.bus.publish([publishedEvent(PROJECT_EVENTS, "project.archived", { projectId, workspaceId: ana.workspaceId, status: "archived" })]);
    const refused = await refusalOf(as(member(commonV1.Role.ROLE_EDITOR), () => alert.client.createAlert({ projectId, name: "Late", channels: { channels: [{ type: "email" }] } } as alertV1.CreateAlertRequest)));
    expect(refused).toMatchObject({ code: "not_found" });
  });
});
