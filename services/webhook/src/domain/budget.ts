import type { Write } from "@earshot/platform/core";
import { BUDGETS, type BudgetDoc } from "../store";
import type { WebhookStoreDeps } from "./deps";

// The workspace's daily delivery budget (plan `free`: 1,000 a UTC day, test sends included): one count per
// workspace and UTC day, spent by the worker in the same commit that claims the deliveries it sends, and
// read as it is by get_usage and test_webhook. A send that finds it spent is held until the next day.

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The first instant of the next UTC day: when held deliveries go out. */
export const nextUtcDay = (at: Date): Date => {
  const d = new Date(at);
  d.setUTCHours(24, 0, 0, 0);
  return d;
};

const budgetId = (workspaceId: string, day: string) => `${workspaceId}:${day}`;

/** The sends counted today against the workspace's budget. */
export const deliveriesToday = async (deps: WebhookStoreDeps, workspaceId: string): Promise<number> =>
  (await deps.collections.budgets.findById(budgetId(workspaceId, utcDay(deps.clock.now()))))?.used ?? 0;

/** What get_usage reads of this service. */
export const workspaceUsage = async (deps: WebhookStoreDeps, workspaceId: string): Promise<Record<string, number>> => ({
  webhookDeliveriesPerDay: await deliveriesToday(deps, workspaceId),
});

/**
 * Today's budget records of some workspaces, to spend from in one commit: `take(workspaceId, allowance)`
 * counts one send when the allowance has room; `writes()` are the record changes to commit with the claim
 * (versioned, so two instances spending at once cannot both count the same room: one commit fails and
 * its deliveries are claimed again).
 */
export const openBudgets = async (deps: WebhookStoreDeps, workspaceIds: readonly string[], now: Date) => {
  const day = utcDay(now);
  const ids = [...new Set(workspaceIds)].map((w) => budgetId(w, day));
  const stored = new Map((ids.length > 0 ? await deps.collections.budgets.find({ _id: { $in: ids } }) : []).map((b) => [b._id, b]));
  const spent = new Map<string, number>();
  return {
    day,
    take: (workspaceId: string, allowance: number): boolean => {
      const id = budgetId(workspaceId, day);
      const used = (stored.get(id)?.used ?? 0) + (spent.get(id) ?? 0);
      if (used >= allowance) return false;
      spent.set(id, (spent.get(id) ?? 0) + 1);
      return true;
    },
    writes: (): Write[] =>
      [...spent].map(([id, n]): Write => {
        const before = stored.get(id);
        if (before) {
          const doc: BudgetDoc = { ...before, used: before.used + n, _v: (before._v ?? 1) + 1 };
          return { kind: "replace", collection: BUDGETS, doc, expectedVersion: before._v ?? 1 };
        }
        const doc: BudgetDoc = { _id: id, _v: 1, workspaceId: id.slice(0, id.length - day.length - 1), day, used: n, createdAt: now };
        return { kind: "insert", collection: BUDGETS, doc };
      }),
  };
};
