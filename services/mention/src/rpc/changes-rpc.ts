import { type AsyncService, requireProjectCaller } from "@earshot/platform";
import { mentionV1 } from "@earshot/proto";
import { listMentionChanges } from "../domain/changes";
import type { MentionDeps } from "../domain/deps";
import { filtersOf } from "../filters";
import { toMentionMessage } from "../mention-message";

// gRPC adapter of the change feed (domain/changes.ts). A waiting read ends early when the call is
// cancelled or its deadline passes (the signal), so a caller that went away holds nothing here.

export type ChangesService = Pick<AsyncService<mentionV1.MentionServiceServer>, "listMentionChanges">;

const KINDS = { created: mentionV1.MentionChangeKind.MENTION_CHANGE_KIND_CREATED, updated: mentionV1.MentionChangeKind.MENTION_CHANGE_KIND_UPDATED } as const;

export const changesRpc = (deps: MentionDeps): ChangesService => ({
  listMentionChanges: async (req, ctx) => {
    const page = await listMentionChanges(deps, requireProjectCaller(ctx), {
      projectId: req.projectId,
      filters: filtersOf(req.filters),
      viewId: req.viewId,
      limit: req.limit === 0 ? undefined : req.limit,
      cursor: req.cursor || undefined,
      waitSeconds: req.waitSeconds,
      collapse: req.collapse,
      signal: ctx.signal,
    });
    return {
      changes: page.changes.map((c) => ({ mention: toMentionMessage(c.mention), change: KINDS[c.change], seq: String(c.seq) })),
      nextCursor: page.nextCursor,
      hasMore: page.hasMore,
    };
  },
});
