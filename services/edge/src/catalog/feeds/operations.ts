import { createFeedSchema } from "@earshot/integration/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { projectId, resourceId } from "../shared/schemas";
import { feedSchema, presentFeed } from "./resource";

const feedPath = z.object({ feedId: resourceId("feed", "The feed id, e.g. feed_01J…") }).strict();

export const feedOperations = [
  defineOperation({
    name: "create_feed",
    title: "Add a feed",
    description:
      "Adds an RSS or Atom feed for the project to read (editor or owner): a Google Alerts feed, a news site's, a blog's. Earshot fetches it within seconds and then at every poll interval with a conditional GET; its entries that match one of the project's keywords whose sources include rss become mentions (on the first fetch, only entries of the last 24 hours). The URL follows the webhooks' outbound rule: a public address (https, or http only to private addresses when the operator allows private networks). At most 50 feeds a project; the same URL twice is a conflict.",
    method: "POST",
    path: "/feeds",
    scope: "integrations:write",
    tag: "Integrations",
    output: feedSchema,
    input: {
      body: z.object({ projectId, ...createFeedSchema.shape }).strict(),
    },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async (input, ctx) => {
      const { feed } = await ctx.backends.integration.createFeed({ projectId: input.projectId, url: input.url, ...(input.name !== undefined ? { name: input.name } : {}) });
      return { data: presentFeed(feed) };
    },
  }),
  defineOperation({
    name: "list_feeds",
    title: "List feeds",
    description: "Lists the feeds a project reads, oldest first, with how their fetching goes (last fetch, last success, last error, failing since). Any member may read them.",
    method: "GET",
    path: "/feeds",
    scope: "integrations:read",
    tag: "Integrations",
    output: feedSchema,
    input: { query: z.object({ projectId }).strict() },
    successStatus: 200,
    list: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { feeds } = await ctx.backends.integration.listFeeds({ projectId: input.projectId });
      return { data: feeds.map(presentFeed), nextCursor: null, limit: 50 };
    },
  }),
  defineOperation({
    name: "delete_feed",
    title: "Delete a feed",
    description: "Stops reading a feed (editor or owner). The mentions it brought stay. Returns the deleted feed.",
    method: "DELETE",
    path: "/feeds/:feedId",
    scope: "integrations:write",
    tag: "Integrations",
    output: feedSchema,
    input: { path: feedPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { feed } = await ctx.backends.integration.deleteFeed({ feedId: input.feedId });
      return { data: presentFeed(feed) };
    },
  }),
];
