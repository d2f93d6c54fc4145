import { type AsyncService, notFound, requireProjectCaller, type RpcContext } from "@earshot/platform";
import { integrationV1 } from "@earshot/proto";
import type { IntegrationDeps } from "../domain/deps";
import { completeLinkedinAuthorization } from "../domain/linkedin-callback";
import { getLinkedinConnectUrl } from "../domain/linkedin-connect";
import { disconnectLinkedin } from "../domain/linkedin-disconnect";
import { getLinkedinIntegration } from "../domain/linkedin-get";
import { toIntegration } from "../linkedin-message";
import { chooseLinkedinPageByToken } from "../domain/linkedin-page-choice";
import { selectLinkedinPage } from "../domain/linkedin-select";
import { syncLinkedin } from "../domain/linkedin-sync";
import { syncsOn } from "../domain/linkedin-sync-allowance";

type Handlers = Omit<AsyncService<integrationV1.IntegrationServiceServer>, "getSourceHealth" | "sampleSearch" | "createFeed" | "listFeeds" | "deleteFeed">;

// gRPC adapter of the LinkedIn connection: decode, call a domain verb, encode. The caller comes from the
// call metadata; the callback, the callback page's Page choice and the usage count act for no person (the
// state and the page-choice token bind the first two, the edge names the caller's own workspace for the
// last).

export const linkedinRpc = (deps: IntegrationDeps): Handlers => ({
  getLinkedinConnectUrl: async (req: integrationV1.GetLinkedinConnectUrlRequest, ctx: RpcContext) =>
    getLinkedinConnectUrl(deps, requireProjectCaller(ctx), { projectId: req.projectId, redirectUri: req.redirectUri }),
  completeLinkedinAuthorization: async (req: integrationV1.CompleteLinkedinAuthorizationRequest) => {
    const done = await completeLinkedinAuthorization(deps, { state: req.state, code: req.code, error: req.error, errorDescription: req.errorDescription });
    return {
      projectId: done.projectId,
      ownerId: done.ownerId,
      integration: toIntegration(done.integration),
      pageChoiceToken: done.pageChoice?.token ?? "",
      pageChoiceExpiresAt: done.pageChoice?.expiresAt,
    };
  },
  chooseLinkedinPage: async (req: integrationV1.ChooseLinkedinPageRequest) => {
    const done = await chooseLinkedinPageByToken(deps, { pageChoiceToken: req.pageChoiceToken, organizationUrn: req.organizationUrn });
    return { projectId: done.projectId, ownerId: done.ownerId, integration: toIntegration(done.integration) };
  },
  getLinkedinIntegration: async (req: integrationV1.GetLinkedinIntegrationRequest, ctx: RpcContext) => ({
    integration: toIntegration(await getLinkedinIntegration(deps, requireProjectCaller(ctx), req.projectId)),
  }),
  selectLinkedinPage: async (req: integrationV1.SelectLinkedinPageRequest, ctx: RpcContext) => ({
    integration: toIntegration(await selectLinkedinPage(deps, requireProjectCaller(ctx), { projectId: req.projectId, organizationUrn: req.organizationUrn })),
  }),
  syncLinkedin: async (req: integrationV1.SyncLinkedinRequest, ctx: RpcContext) => {
    const done = await syncLinkedin(deps, requireProjectCaller(ctx), req.projectId);
    return { integration: toIntegration(done.integration), postsFound: done.postsFound };
  },
  disconnectLinkedin: async (req: integrationV1.DisconnectLinkedinRequest, ctx: RpcContext) => ({
    integration: toIntegration(await disconnectLinkedin(deps, requireProjectCaller(ctx), req.projectId)),
  }),
  getWorkspaceUsage: async (req: integrationV1.GetWorkspaceUsageRequest) => {
    if (!req.workspaceId) throw notFound("Workspace");
    // Named as get_usage names the limit (the one this service's registry entry declares).
    return { usage: { counts: { linkedinSyncsPerDay: String(await syncsOn(deps, req.workspaceId, deps.clock.now())) } } };
  },
});
