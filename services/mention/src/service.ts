import { INTEGRATION_EVENTS } from "@earshot/integration/events";
import { KEYWORD_EVENTS } from "@earshot/keyword/events";
import type { AsyncService, ServiceModule, Subscription } from "@earshot/platform";
import { PROJECT_EVENTS } from "@earshot/project/events";
import { mentionV1 } from "@earshot/proto";
import { startMentionConsumers } from "./consumers";
import { ingestRpc } from "./rpc/ingest-rpc";
import { mentionRpc } from "./rpc/mention-rpc";
import { openMentionCollections } from "./store";
import { wireMention } from "./wiring";

export const MENTION_SERVICE_NAME = "earshot.mention.v1.MentionService";

export const mentionService: ServiceModule = {
  name: "mention",
  consumes: [PROJECT_EVENTS.topic, KEYWORD_EVENTS.topic, INTEGRATION_EVENTS.topic],
  ensureIndexes: async (store) => {
    await openMentionCollections(store);
  },
  open: async (deps) => {
    const collections = await openMentionCollections(deps.store);
    const domain = wireMention({ ...deps, collections });
    const handlers: AsyncService<mentionV1.MentionServiceServer> = { ...ingestRpc(domain), ...mentionRpc(domain) };
    let subscriptions: Subscription[] = [];
    return {
      grpc: [{ name: MENTION_SERVICE_NAME, definition: mentionV1.MentionServiceService, handlers }],
      start: async () => {
        subscriptions = await startMentionConsumers(deps, domain);
      },
      stop: async () => {
        await Promise.all(subscriptions.map((s) => s.stop()));
      },
    };
  },
};
