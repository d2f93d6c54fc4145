import type { accountV1 } from "@earshot/proto";
import { z } from "zod";
import { resourceSchemas } from "../shared/resources";
import type { WorkspaceCounts } from "./workspace-usage";

const used = z.number().int().nullable().describe("null when the count cannot be read right now (available is false).");
const available = z.boolean().describe("false when the service that counts it could not answer now: used is then null; ask again.");

const allowanceSchema = z.object({ allowance: z.number().int(), used, available }).register(resourceSchemas, { id: "Allowance" });

const openAllowanceSchema = z
  .object({ allowance: z.number().int().nullable().describe("null: the plan sets no limit."), used, available })
  .register(resourceSchemas, { id: "OpenAllowance", description: "Something counted that a plan may leave unlimited." });

export const usageSchema = z
  .object({
    plan: z.string(),
    limits: z.object({
      projects: allowanceSchema,
      seats: allowanceSchema,
      keywords: allowanceSchema,
      webhookDeliveriesPerDay: allowanceSchema,
      linkedinSyncsPerDay: allowanceSchema,
      mentionsThisMonth: openAllowanceSchema.describe("Mentions the workspace received since the first instant of this month (UTC)."),
    }),
  })
  .register(resourceSchemas, { id: "Usage", description: "The workspace's plan allowances and what it uses of them." });

export type Usage = z.output<typeof usageSchema>;

/** The names get_usage reports a count under, which services declare in the registry (`usage`). */
export const USAGE_LIMITS = Object.keys(usageSchema.shape.limits.shape) as ReadonlyArray<keyof Usage["limits"]>;

/** The plan's allowances beside the counts the services answered; a limit no service counts is 0, one that could not be read null. */
export const presentUsage = (workspace: accountV1.Workspace | undefined, { counts, unavailable }: WorkspaceCounts): Usage => {
  const a = workspace?.allowances;
  const missing = new Set(unavailable);
  const used = (limit: keyof Usage["limits"]) => (missing.has(limit) ? { used: null, available: false } : { used: counts[limit] ?? 0, available: true });
  return {
    plan: workspace?.plan ?? "free",
    limits: {
      projects: { allowance: a?.projects ?? 0, ...used("projects") },
      seats: { allowance: a?.seats ?? 0, ...used("seats") },
      keywords: { allowance: a?.keywords ?? 0, ...used("keywords") },
      webhookDeliveriesPerDay: { allowance: a?.webhookDeliveriesPerDay ?? 0, ...used("webhookDeliveriesPerDay") },
      linkedinSyncsPerDay: { allowance: a?.linkedinSyncsPerDay ?? 0, ...used("linkedinSyncsPerDay") },
      // No plan limits mentions: they are counted, never refused.
      mentionsThisMonth: { allowance: null, ...used("mentionsThisMonth") },
    },
  };
};
