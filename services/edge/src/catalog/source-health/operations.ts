import { defineOperation } from "../operation";
import { projectPath } from "../shared/schemas";
import { presentSourceHealth, sourceHealthSchema } from "./resource";

export const sourceHealthOperations = [
  defineOperation({
    name: "get_source_health",
    title: "Get source health",
    description:
      "Reports, per source of the project (x, reddit, youtube, linkedin, hackernews, bluesky, rss, github), how collection is going: state, last successful poll, last error, posts found in the last 24 h, backoff, quota left, detection lag p50/p95 over the last 24 h, the next poll and whether the source is simulated. Any member may read it.",
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
