import { notFound, requireProjectCaller, type RpcContext } from "@earshot/platform";
import type { alertV1 } from "@earshot/proto";
import { createAlert, deleteAlert, getAlert, listAlerts, updateAlert } from "../domain/alerts";
import type { AlertDeps } from "../domain/deps";
import type { AlertDoc } from "../store";

// gRPC adapter: decode, call a domain verb, encode. No rules live here. The caller (with the memberships
// the edge resolved) comes from the call metadata, never from the request. An absent message (channels,
// digest, filters) or optional scalar means "not given".

export const toAlertMessage = (a: AlertDoc): alertV1.Alert => ({
  id: a._id,
  projectId: a.projectId,
  name: a.name,
  active: a.active,
  channels: a.channels.map((c) => ({ type: c.type })),
  digest: { enabled: a.digest.enabled, hour: a.digest.hour },
  instant: a.instant,
  filters: {
    keywordIds: [...a.filters.keywordIds],
    groupIds: [...a.filters.groupIds],
    sources: [...a.filters.sources],
    sentiments: [...a.filters.sentiments],
    ...(a.filters.minRelevance !== undefined ? { minRelevance: a.filters.minRelevance } : {}),
  },
  isDefault: a.kind === "daily_digest",
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

const idOf = (id: string) => {
  // An empty id names nothing: the same answer as an id nobody has.
  if (!id) throw notFound("Alert");
  return id;
};

const fieldsOf = (req: alertV1.CreateAlertRequest | alertV1.UpdateAlertRequest) => ({
  active: req.active,
  channels: req.channels?.channels,
  digest: req.digest,
  instant: req.instant,
  filters: req.filters,
});

export const alertRpc = (deps: AlertDeps) => ({
  listAlerts: async (req: alertV1.ListAlertsRequest, ctx: RpcContext): Promise<alertV1.ListAlertsResponse> => {
    const page = await listAlerts(deps, requireProjectCaller(ctx), { projectId: req.projectId, limit: req.limit || undefined, cursor: req.cursor || undefined });
    return { alerts: page.items.map(toAlertMessage), nextCursor: page.nextCursor ?? "" };
  },
  getAlert: async (req: alertV1.GetAlertRequest, ctx: RpcContext): Promise<alertV1.GetAlertResponse> => ({
    alert: toAlertMessage(await getAlert(deps, requireProjectCaller(ctx), idOf(req.alertId))),
  }),
  createAlert: async (req: alertV1.CreateAlertRequest, ctx: RpcContext): Promise<alertV1.CreateAlertResponse> => ({
    alert: toAlertMessage(await createAlert(deps, requireProjectCaller(ctx), { projectId: req.projectId, name: req.name, ...fieldsOf(req) }, ctx.idempotencyKey)),
  }),
  updateAlert: async (req: alertV1.UpdateAlertRequest, ctx: RpcContext): Promise<alertV1.UpdateAlertResponse> => ({
    alert: toAlertMessage(await updateAlert(deps, requireProjectCaller(ctx), idOf(req.alertId), { name: req.name, ...fieldsOf(req) })),
  }),
  deleteAlert: async (req: alertV1.DeleteAlertRequest, ctx: RpcContext): Promise<alertV1.DeleteAlertResponse> => ({
    alert: toAlertMessage(await deleteAlert(deps, requireProjectCaller(ctx), idOf(req.alertId))),
  }),
});
