import { type AsyncService, consume, type ServiceModule } from "@earshot/platform";
import { PROJECT_EVENTS } from "@earshot/contracts/events";
import { keywordV1 } from "@earshot/proto";
import type { KeywordDeps } from "./domain/deps";
import { handleProjectEvent } from "./domain/project-events";
import { keywordRpc } from "./rpc/keyword-rpc";
import { openKeywordCollections } from "./store";
import { wireKeyword } from "./wiring";

export const KEYWORD_SERVICE_NAME = "earshot.keyword.v1.KeywordService";

export const keywordService: ServiceModule<KeywordDeps> = {
  name: "keyword",
  consumers: [
    // Project events give every new project its default groups and keep each project's status (paused
    // projects are not collected; archived ones lose their keywords). From the earliest retained event,
    // so projects created before this service first ran are known too.
    consume(PROJECT_EVENTS, { group: "keyword.project-events", types: ["project.created", "project.updated", "project.archived"], startFrom: "earliest", handle: handleProjectEvent }),
  ],
  ensureIndexes: async (store) => {
    await openKeywordCollections(store);
  },
  open: async (deps) => {
    const collections = await openKeywordCollections(deps.store);
    const domain = wireKeyword({ ...deps, collections });
    const handlers: AsyncService<keywordV1.KeywordServiceServer> = keywordRpc(domain);
    return { domain, grpc: [{ name: KEYWORD_SERVICE_NAME, definition: keywordV1.KeywordServiceService, handlers }] };
  },
};
