import { isUniqueViolation } from "@earshot/platform/core";
import type { DeliveryDeps } from "./deps";

// The workspace's daily delivery budget (plan `free`: 1,000 a UTC day, test sends included), counted in
// the store so every replica spends from one count. A send that finds it spent is held until the next day.

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The first instant of the next UTC day: when held deliveries go out. */
export const nextUtcDay = (at: Date): Date => {
  const d = new Date(at);
  d.setUTCHours(24, 0, 0, 0);
  return d;
};

/** Counts one send against today's budget; false when it is spent (nothing counted). */
export const spendBudget = async (deps: DeliveryDeps, workspaceId: string, allowance: number): Promise<{ spent: boolean; day: string }> => {
  const now = deps.clock.now();
  const day = utcDay(now);
  const _id = `${workspaceId}:${day}`;
  if (allowance < 1) return { spent: false, day };
  for (let round = 0; round < 10; round++) {
    const counted = await deps.collections.budgets.findOneAndUpdate({ _id, used: { $lt: allowance } }, { $inc: { used: 1 } });
    if (counted) return { spent: true, day };
    const record = await deps.collections.budgets.findById(_id);
    if (record && record.used >= allowance) return { spent: false, day };
    if (!record) {
      try {
        await deps.collections.budgets.insertOne({ _id, workspaceId, day, used: 1, createdAt: now });
        return { spent: true, day };
      } catch (err) {
        // Another replica opened the day first: count against its record.
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }
  throw new Error(`the delivery budget of ${workspaceId} stayed contended; the attempt is retried when its claim ends`);
};
