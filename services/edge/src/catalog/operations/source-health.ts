import { SOURCE_WORDS } from "@earshot/platform";
import { SOURCES } from "@earshot/project/fields";
import type { integrationV1 } from "@earshot/proto";
import { z } from "zod";
import { defineOperation } from "../operation";
import { resourceSchemas } from "../present";
import { resourceId } from "../schemas";
import { apiWord } from "../wire-enums";

// get_source_health: how collection is going for each source of a project. Its resource schema and
// presenter live here beside the operation, like any resource: gRPC message -> JSON, typed by the schema.

const SOURCE_STATES = ["collecting", "idle", "stopped", "backing_off"] as const;

const timestamp = z.iso.datetime().describe("ISO 8601, UTC.");

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
        simulated: z.boolean().describe("Served by a local simulator, not the platform."),
      }),
    ),
  })
  .register(resourceSchemas, { id: "SourceHealth", description: "Per source of a project (x, reddit, youtube, linkedin), how collection is going." });

export type SourceHealthData = z.output<typeof sourceHealthSchema>;

/** A field the service must have sent; its absence is a service fault, never the client's. */
const required = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`The service answered without a ${what}.`);
  return value;
};

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);
const int = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

const sourceOf = (value: number): (typeof SOURCES)[number] => {
  const word = apiWord(SOURCE_WORDS, value);
  if (word === null || !(SOURCES as readonly string[]).includes(word)) throw new Error(`The service answered source "${word}".`);
  return word as (typeof SOURCES)[number];
};

const stateOf = (value: string): (typeof SOURCE_STATES)[number] => {
  if (!(SOURCE_STATES as readonly string[]).includes(value)) throw new Error(`The service answered state "${value}".`);
  return value as (typeof SOURCE_STATES)[number];
};

export const presentSourceHealth = (projectId: string, res: integrationV1.GetSourceHealthResponse): SourceHealthData => ({
  projectId,
  sources: res.sources.map((s) => ({
    source: sourceOf(s.source),
    state: stateOf(s.state),
    lastSuccessAt: iso(s.lastSuccessAt),
    lastError: s.lastError ? { at: required(s.lastError.at, "lastError.at").toISOString(), message: s.lastError.message, status: s.lastError.status } : null,
    postsLast24h: Number(s.postsLast24h),
    backoffUntil: iso(s.backoffUntil),
    quotaLeft: int(s.quotaLeft),
    detectionLag: s.detectionLag ? { p50Ms: Number(s.detectionLag.p50Ms), p95Ms: Number(s.detectionLag.p95Ms) } : null,
    nextPollAt: iso(s.nextPollAt),
    simulated: s.simulated,
  })),
});

const projectPath = z.object({ projectId: resourceId("The project id, e.g. prj_01J…") }).strict();

export const sourceHealthOperations = [
  defineOperation({
    name: "get_source_health",
    title: "Get source health",
    description:
      "Reports, per source of the project (x, reddit, youtube, linkedin), how collection is going: state, last successful poll, last error, posts found in the last 24 h, backoff, quota left, detection lag p50/p95 over the last 24 h, the next poll and whether the source is simulated. Any member may read it.",
    method: "GET",
    path: "/projects/:projectId/source-health",
    scope: "integrations:read",
    tag: "Integrations",
    output: sourceHealthSchema,
    input: { path: projectPath },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => ({ data: presentSourceHealth(input.projectId, await ctx.backends.integration.getSourceHealth({ projectId: input.projectId })) }),
  }),
];
