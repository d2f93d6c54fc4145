import { ACCOUNT_EVENTS, ALERT_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { type AsyncService, consume, consumeBatches, resolveEncryptionKey, type ServiceModule, unsubscribeLinkKey } from "@earshot/platform";
import { digestV1 } from "@earshot/proto";
import { digestSettingsShape, publicUrlOf } from "./config";
import type { DigestDeps } from "./domain/deps";
import { handleKeywordEvent } from "./domain/keyword-groups";
import { handleMentionsCreated } from "./domain/mentions";
import { handleAccountEvent, handleAlertEvent, handleProjectEvent } from "./domain/copies";
import { tick } from "./domain/scheduler";
import { digestRpc } from "./rpc/digest-rpc";
import { openDigestCollections } from "./store";
import { wireDigest } from "./wiring";

// An event consumer with one operators' call (send a digest now, for the CLI). It keeps copies of the workspace
// owners, projects, alert rules and each keyword's group from their services' events (from the earliest retained event, so what
// existed before it first ran is known), keeps each new mention for a few days, and ticks its schedule.

/** Most new mentions kept (and queued) in one write. */
const MENTION_BATCH = 200;

export const DIGEST_SERVICE_NAME = "earshot.digest.v1.DigestService";

const PROJECT_TYPES = ["project.created", "project.updated", "project.archived"] as const;
const KEYWORD_TYPES = ["keyword.created", "keyword.updated", "keyword.deactivated"] as const;

export const digestService: ServiceModule<DigestDeps> = {
  name: "digest",
  settings: digestSettingsShape,
  consumers: [
    consume(ACCOUNT_EVENTS, { group: "digest.account-events", types: ["user.created", "user.deactivated", "user.reactivated"], startFrom: "earliest", handle: handleAccountEvent }),
    consume(PROJECT_EVENTS, { group: "digest.project-events", types: PROJECT_TYPES, startFrom: "earliest", handle: handleProjectEvent }),
    consume(ALERT_EVENTS, { group: "digest.alert-events", types: ["alert.created", "alert.updated", "alert.deleted"], startFrom: "earliest", handle: handleAlertEvent }),
    // Each keyword's group, so the mentions kept follow a moved keyword to its new group.
    consume(KEYWORD_EVENTS, { group: "digest.keyword-events", types: KEYWORD_TYPES, startFrom: "earliest", handle: handleKeywordEvent }),
    consumeBatches([MENTION_EVENTS], {
      group: "digest.mentions",
      types: ["mention.created"],
      maxBatch: MENTION_BATCH,
      handle: (domain: DigestDeps, events) => handleMentionsCreated(domain, events.flatMap((e) => (e.type === "mention.created" ? [e] : []))),
    }),
  ],
  ensureIndexes: async (store) => {
    await openDigestCollections(store);
  },
  open: async (deps) => {
    const collections = await openDigestCollections(deps.store);
    const settings = deps.config as unknown as { EARSHOT_ENCRYPTION_KEY?: string };
    const key = await resolveEncryptionKey({ configured: settings.EARSHOT_ENCRYPTION_KEY, dataDir: deps.config.EARSHOT_DATA_DIR, embedded: !deps.config.MONGO_URL });
    const domain = wireDigest({ ...deps, collections, publicUrl: publicUrlOf(deps.config as unknown as Record<string, unknown>), linkKey: unsubscribeLinkKey(key) });
    const tickMs = Number((deps.config as unknown as Record<string, unknown>).EARSHOT_DIGEST_TICK_SECONDS ?? 15) * 1000;
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<unknown> | undefined;
    const handlers: AsyncService<digestV1.DigestServiceServer> = digestRpc(domain);
    return {
      domain,
      grpc: [{ name: DIGEST_SERVICE_NAME, definition: digestV1.DigestServiceService, handlers }],
      start: async () => {
        // One tick at a time per replica; a slow one (a mail server taking its time) delays the next.
        timer = setInterval(() => {
          running ??= tick(domain)
            .catch((err: unknown) => deps.logger.error({ err }, "digest tick failed"))
            .finally(() => (running = undefined));
        }, tickMs);
        timer.unref();
      },
      stop: async () => {
        if (timer) clearInterval(timer);
        await running;
      },
    };
  },
};
