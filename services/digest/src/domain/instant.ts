import { isUniqueViolation } from "@earshot/platform/core";
import type { DigestDeps } from "./deps";
import { recipientOf, unsubscribeTokenOf } from "./digests";
import { renderEmail, summarize } from "./email";

// Instant alerts: the mentions queued for a rule go out on the next tick (so the first within a minute
// of a rule's first match), then at most one email per rule every 15 minutes, holding what arrived
// meanwhile. A replica claims the rule's next email by moving its `lastSentAt` (a versioned update), so
// two replicas never send the same batch; one that dies after the claim leaves the queue for the next.

export const INSTANT_SPACING_MS = 15 * 60_000;
/** Queued mentions looked at per tick. */
const SCAN = 2000;

const claim = async (deps: DigestDeps, ruleId: string): Promise<boolean> => {
  const now = deps.clock.now();
  const state = await deps.collections.instant.findById(ruleId);
  if (state && now.getTime() - state.lastSentAt.getTime() < INSTANT_SPACING_MS) return false;
  if (!state) {
    try {
      await deps.collections.instant.insertOne({ _id: ruleId, lastSentAt: now, _v: 1 });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }
  const moved = await deps.collections.instant.updateOne({ _id: ruleId, _v: state._v ?? 1 }, { $set: { lastSentAt: now } });
  return moved.matchedCount === 1;
};

export const runInstantAlerts = async (deps: DigestDeps): Promise<{ sent: number }> => {
  const queued = await deps.collections.pending.find({}, { sort: { at: 1 }, limit: SCAN });
  const ruleIds = [...new Set(queued.map((p) => p.ruleId))];
  let sent = 0;
  for (const ruleId of ruleIds) {
    try {
      const rule = await deps.collections.rules.findById(ruleId);
      const to = rule?.active && rule.instant ? await recipientOf(deps, rule) : undefined;
      if (!rule || !to) {
        // Nothing is owed for a rule turned off, a paused project or a deactivated owner: no backlog later.
        await deps.collections.pending.deleteMany({ ruleId });
        continue;
      }
      if (!(await claim(deps, ruleId))) continue;
      const batch = await deps.collections.pending.find({ ruleId }, { sort: { at: 1 } });
      const mentions = await deps.collections.mentions.find({ _id: { $in: batch.map((p) => p.mentionId) } });
      if (mentions.length > 0) {
        await deps.mailer.send(renderEmail({ kind: "instant", project: to.project, rule, owner: to.owner.email, unsubscribeToken: unsubscribeTokenOf(deps, rule, to.owner), content: summarize(mentions), publicUrl: deps.publicUrl }));
        sent += 1;
      }
      await deps.collections.pending.deleteMany({ _id: { $in: batch.map((p) => p._id) } });
    } catch (err) {
      deps.logger.error({ err, ruleId }, "instant alert failed");
    }
  }
  return { sent };
};
