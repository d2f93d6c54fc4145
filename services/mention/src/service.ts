import type { AsyncService, ServiceModule } from "@earshot/platform";
import { mentionV1 } from "@earshot/proto";
import { MENTION_CONSUMERS } from "./consumers";
import type { MentionDeps } from "./domain/deps";
import { numberOlderMentions } from "./domain/change-backfill";
import { checkProjectGroups } from "./domain/regroup";
import { mentionSettingsOf, mentionSettingsShape } from "./config";
import { changesRpc } from "./rpc/changes-rpc";
import { ingestRpc } from "./rpc/ingest-rpc";
import { mentionRpc } from "./rpc/mention-rpc";
import { previewRpc } from "./rpc/preview-rpc";
import { openMentionCollections } from "./store";
import { wireMention } from "./wiring";

export const MENTION_SERVICE_NAME = "earshot.mention.v1.MentionService";

export const mentionService: ServiceModule<MentionDeps> = {
  name: "mention",
  settings: mentionSettingsShape,
  consumers: MENTION_CONSUMERS,
  ensureIndexes: async (store) => {
    await openMentionCollections(store);
  },
  open: async (deps) => {
    const collections = await openMentionCollections(deps.store);
    const settings = mentionSettingsOf(deps.config);
    const domain = wireMention({ ...deps, collections, changeFeedRetentionDays: settings.EARSHOT_CHANGE_FEED_RETENTION_DAYS });
    const handlers: AsyncService<mentionV1.MentionServiceServer> = { ...ingestRpc(domain), ...mentionRpc(domain), ...changesRpc(domain), ...previewRpc(domain) };
    let stopping = false;
    let checking: Promise<unknown> | undefined;
    return {
      domain,
      grpc: [{ name: MENTION_SERVICE_NAME, definition: mentionV1.MentionServiceService, handlers }],
      // Mentions stored before their groups followed their keywords are regrouped once, in the background,
      // and then those stored before the change feed are numbered in it, once.
      start: async () => {
        checking = checkProjectGroups(domain, () => stopping)
          .then((done) => done.mentions > 0 && deps.logger.info(done, "mentions regrouped to their keywords' groups"))
          .catch((err: unknown) => deps.logger.error({ err }, "checking mentions' groups failed; it runs again at the next start"))
          .then(() => numberOlderMentions(domain, () => stopping))
          .then((done) => done !== undefined && done.mentions > 0 && deps.logger.info(done, "mentions stored before the change feed numbered in it"))
          .catch((err: unknown) => deps.logger.error({ err }, "numbering older mentions in the change feed failed; it runs again at the next start"));
      },
      stop: async () => {
        stopping = true;
        await checking;
      },
    };
  },
};
