import { ACCOUNT_EVENTS } from "@earshot/account/events";
import { ALERT_EVENTS } from "@earshot/alert/events";
import { MENTION_EVENTS } from "@earshot/mention/events";
import { type AsyncService, type ServiceModule, type Subscription, subscribeDomainEvents } from "@earshot/platform";
import { PROJECT_EVENTS } from "@earshot/project/events";
import { digestV1 } from "@earshot/proto";
import { digestSettingsShape, publicUrlOf } from "./config";
import { handleMentionsCreated } from "./domain/mentions";
import { handleAccountEvent, handleAlertEvent, handleProjectEvent } from "./domain/replica";
import { tick } from "./domain/scheduler";
import { digestRpc } from "./rpc/digest-rpc";
import { openDigestCollections } from "./store";
import { wireDigest } from "./wiring";

// An event consumer with one operators' call (send a digest now, for the CLI). It keeps copies of the workspace
// owners, projects and alert rules from their services' events (from the earliest retained event, so what
// existed before it first ran is known), keeps each new mention for a few days, and ticks its schedule.

/** Most new mentions kept (and queued) in one write. */
const MENTION_BATCH = 200;

export const DIGEST_SERVICE_NAME = "earshot.digest.v1.DigestService";

export const digestService: ServiceModule = {
  name: "digest",
  settings: digestSettingsShape,
  consumes: [ACCOUNT_EVENTS.topic, PROJECT_EVENTS.topic, ALERT_EVENTS.topic, MENTION_EVENTS.topic],
  ensureIndexes: async (store) => {
    await openDigestCollections(store);
  },
  open: async (deps) => {
    const collections = await openDigestCollections(deps.store);
    const domain = wireDigest({ ...deps, collections, publicUrl: publicUrlOf(deps.config as unknown as Record<string, unknown>) });
    const tickMs = Number((deps.config as unknown as Record<string, unknown>).EARSHOT_DIGEST_TICK_SECONDS ?? 15) * 1000;
    const subscriptions: Subscription[] = [];
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<unknown> | undefined;
    const common = { bus: deps.bus, store: deps.store, clock: deps.clock, logger: deps.logger };
    const handlers: AsyncService<digestV1.DigestServiceServer> = digestRpc(domain);
    return {
      grpc: [{ name: DIGEST_SERVICE_NAME, definition: digestV1.DigestServiceService, handlers }],
      start: async () => {
        subscriptions.push(
          await subscribeDomainEvents({ ...common, groupId: "digest.account-events", events: ACCOUNT_EVENTS, types: ["user.created", "user.deactivated", "user.reactivated"], startFrom: "earliest", handle: (e) => handleAccountEvent(domain, e) }),
          await subscribeDomainEvents({ ...common, groupId: "digest.project-events", events: PROJECT_EVENTS, types: ["project.created", "project.updated", "project.archived"], startFrom: "earliest", handle: (e) => handleProjectEvent(domain, e) }),
          await subscribeDomainEvents({ ...common, groupId: "digest.alert-events", events: ALERT_EVENTS, types: ["alert.created", "alert.updated", "alert.deleted"], startFrom: "earliest", handle: (e) => handleAlertEvent(domain, e) }),
          await subscribeDomainEvents({ ...common, groupId: "digest.mentions", events: MENTION_EVENTS, types: ["mention.created"], batch: { maxBatch: MENTION_BATCH, handle: (events) => handleMentionsCreated(domain, events) } }),
        );
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
        await Promise.all(subscriptions.map((s) => s.stop()));
      },
    };
  },
};
