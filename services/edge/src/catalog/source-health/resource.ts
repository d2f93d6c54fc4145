import { SOURCE_WORDS } from "@earshot/platform";
import { SOURCES } from "@earshot/project/fields";
import type { integrationV1 } from "@earshot/proto";
import { z } from "zod";
import { at, atOrNull, oneOf, resourceSchemas, timestamp } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

// How collection is going for each source of a project (get_source_health).

const SOURCE_STATES = ["collecting", "idle", "stopped", "backing_off"] as const;

export const sourceHealthSchema = z
  .object({
    projectId: z.string(),
    sources: z.array(
      z.object({
        source: z.enum(SOURCES),
        state: z
          .enum(SOURCE_STATES)
          .describe(
            "collecting: polled on schedule; idle: nothing to collect (source not enabled, no active keyword on it, no credentials, or no LinkedIn Page selected); stopped: the project is paused; backing_off: waiting for the provider's rate limit or quota to reset.",
          ),
        lastSuccessAt: timestamp.nullable(),
        lastError: z
          .object({ at: timestamp, message: z.string(), status: z.number().int().describe("The provider's HTTP status; 0 when there was no answer.") })
          .nullable(),
        postsLast24h: z.number().int(),
        backoffUntil: timestamp.nullable(),
        quotaLeft: z.number().int().nullable().describe("Provider quota left: YouTube units today, X and Reddit requests in the current window; null when unknown."),
        detectionLag: z
          .object({ p50Ms: z.number().int(), p95Ms: z.number().int() })
          .nullable()
          .describe("collectedAt - publishedAt over the posts found in the last 24 h, in milliseconds; null when none were found."),
        nextPollAt: timestamp.nullable(),
        firstSearchAt: timestamp
          .nullable()
          .describe(
            "When a new or changed keyword (value, aliases or sources) was last searched on this source at once, looking back the first-search window (24 h by default), instead of waiting for the next poll; null when none has run. LinkedIn has no keyword search, so none runs there.",
          ),
        simulated: z.boolean().describe("Served by a local simulator, not the platform."),
        notes: z
          .array(z.string())
          .describe(
            "What an operator should know about the source here, a sentence each: why it is idle, a limit it runs under (GitHub without a token), a part of it that is off. Empty when there is nothing to say.",
          ),
      }),
    ),
  })
  .register(resourceSchemas, { id: "SourceHealth", description: "Per source of a project (x, reddit, youtube, linkedin, hackernews, bluesky, rss, github), how collection is going." });

export type SourceHealthData = z.output<typeof sourceHealthSchema>;

const intOrNull = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

export const presentSourceHealth = (projectId: string, res: integrationV1.GetSourceHealthResponse): SourceHealthData => ({
  projectId,
  sources: res.sources.map((s) => ({
    source: oneOf(SOURCES, apiWord(SOURCE_WORDS, s.source), "source"),
    state: oneOf(SOURCE_STATES, s.state, "state"),
    lastSuccessAt: atOrNull(s.lastSuccessAt),
    lastError: s.lastError ? { at: at(s.lastError.at, "lastError.at"), message: s.lastError.message, status: s.lastError.status } : null,
    postsLast24h: Number(s.postsLast24h),
    backoffUntil: atOrNull(s.backoffUntil),
    quotaLeft: intOrNull(s.quotaLeft),
    detectionLag: s.detectionLag ? { p50Ms: Number(s.detectionLag.p50Ms), p95Ms: Number(s.detectionLag.p95Ms) } : null,
    nextPollAt: atOrNull(s.nextPollAt),
    firstSearchAt: atOrNull(s.firstSearchAt),
    simulated: s.simulated,
    notes: s.notes,
  })),
});
