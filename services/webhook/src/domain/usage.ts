import type { WebhookDeps } from "./deps";

// The daily delivery budget as this service sees it: the deliveries the delivery service reported sent
// (or sending) on the current UTC day, test sends included.

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

export const deliveriesToday = (deps: WebhookDeps, workspaceId: string): Promise<number> =>
  deps.collections.deliveries.count({ workspaceId, budgetDay: utcDay(deps.clock.now()) });

export const workspaceUsage = async (deps: WebhookDeps, workspaceId: string): Promise<Record<string, number>> => ({
  webhookDeliveriesPerDay: await deliveriesToday(deps, workspaceId),
});
