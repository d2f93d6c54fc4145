import { type AsyncService, notFound, requireProjectCaller, SOURCE_WORDS } from "@earshot/platform";
import type { commonV1, integrationV1 } from "@earshot/proto";
import type { IntegrationDeps } from "../domain/deps";
import { getSourceHealth, type SourceHealth } from "../domain/health";

// gRPC adapter for source health: decode, call the domain verb, encode. The caller comes from the call
// metadata, never from the request.

type Handlers = Pick<AsyncService<integrationV1.IntegrationServiceServer>, "getSourceHealth">;

const int64 = (n: number | undefined) => (n === undefined ? undefined : String(Math.round(n)));

export const toSourceHealthMessage = (h: SourceHealth): integrationV1.SourceHealth => ({
  source: SOURCE_WORDS.value(h.source) ?? (0 as commonV1.Source),
  state: h.state,
  lastSuccessAt: h.lastSuccessAt,
  lastError: h.lastError ? { at: h.lastError.at, message: h.lastError.message, status: h.lastError.status } : undefined,
  postsLast24h: String(h.postsLast24h),
  backoffUntil: h.backoffUntil,
  quotaLeft: int64(h.quotaLeft),
  detectionLag: h.detectionLag ? { p50Ms: String(h.detectionLag.p50Ms), p95Ms: String(h.detectionLag.p95Ms) } : undefined,
  nextPollAt: h.nextPollAt,
  firstSearchAt: h.firstSearchAt,
  simulated: h.simulated,
  notes: h.notes,
});

export const healthRpc = (deps: IntegrationDeps): Handlers => ({
  getSourceHealth: async (req, ctx) => {
    // An empty id names nothing: the same answer as an id nobody has.
    if (!req.projectId) throw notFound("Project");
    const sources = await getSourceHealth(deps, requireProjectCaller(ctx), req.projectId);
    return { sources: sources.map(toSourceHealthMessage) };
  },
});
