import { ANALYTICS_GROUP_BY, ANALYTICS_INTERVALS } from "@earshot/mention/fields";
import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { at, int, required, resourceSchemas, timestamp } from "../shared/resources";

// A mention (list_mentions, export_mentions' lines, the triage verbs) and a mention with its triage history
// (get_mention) are declared and presented in the contract layer, the same for the API and the `mention.*`
// webhooks; the mention analytics are the edge's.

export {
  type Mention,
  mentionSchema,
  type MentionWithHistory,
  mentionWithHistorySchema,
  presentMention,
  presentMentionWithHistory,
} from "@earshot/contracts/resources";

const countsSchema = z.record(z.string(), z.number().int());

export const mentionAnalyticsSchema = z
  .object({
    buckets: z
      .array(z.object({ start: timestamp, counts: countsSchema.describe('Mentions by the groupBy key ("all" without groupBy); keys with none are left out.') }))
      .describe("One per interval from since to until, oldest first, empty ones included."),
    totals: countsSchema.describe("The buckets' counts summed by key."),
    total: z.number().int().describe("Mentions in the period (a mention counts once, whatever it is grouped by)."),
    shareOfVoice: z.object({
      myBrand: z.number().int().describe("Mentions matching a keyword of My brand."),
      competitors: z.number().int().describe("Mentions matching a keyword of Competitors."),
      myBrandShare: z.number().min(0).max(1).describe("myBrand / (myBrand + competitors); 0 when both are 0."),
    }),
    timezone: z.string().describe("The project's time zone, in which days and weeks begin."),
    interval: z.enum(ANALYTICS_INTERVALS),
    groupBy: z.enum(ANALYTICS_GROUP_BY).nullable(),
  })
  .register(resourceSchemas, { id: "MentionAnalytics", description: "Mention counts over time and by a dimension, with share of voice." });

export type MentionAnalytics = z.output<typeof mentionAnalyticsSchema>;

const presentCounts = (counts: Record<string, string>): Record<string, number> =>
  Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, int(v, `count of ${k}`)]));

export const presentMentionAnalytics = (
  res: mentionV1.GetMentionAnalyticsResponse,
  asked: { interval: MentionAnalytics["interval"]; groupBy: MentionAnalytics["groupBy"] },
): MentionAnalytics => {
  const share = required(res.shareOfVoice, "share of voice");
  return {
    buckets: res.buckets.map((b) => ({ start: at(b.start, "bucket start"), counts: presentCounts(b.counts) })),
    totals: presentCounts(res.totals),
    total: int(res.total, "total"),
    shareOfVoice: { myBrand: int(share.myBrand, "myBrand"), competitors: int(share.competitors, "competitors"), myBrandShare: share.myBrandShare },
    timezone: res.timezone,
    interval: asked.interval,
    groupBy: asked.groupBy,
  };
};
