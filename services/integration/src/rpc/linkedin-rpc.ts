import type { AsyncService } from "@earshot/platform";
import type { integrationV1 } from "@earshot/proto";
import type { IntegrationDeps } from "../domain/deps";

type Handlers = Omit<AsyncService<integrationV1.IntegrationServiceServer>, "getSourceHealth">;

// PLACEHOLDER until the LinkedIn connection is written.
const notYet = () => Promise.reject(new Error("not written yet"));
export const linkedinRpc = (_deps: IntegrationDeps): Handlers => ({
  getLinkedinConnectUrl: notYet,
  completeLinkedinAuthorization: notYet,
  getLinkedinIntegration: notYet,
  selectLinkedinPage: notYet,
  syncLinkedin: notYet,
  disconnectLinkedin: notYet,
  getWorkspaceUsage: notYet,
});
