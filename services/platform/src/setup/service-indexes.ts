import { systemClock } from "../clock";
import { ensureProcessedEventIndexes } from "../events/consumer";
import { Outbox } from "../outbox/outbox";
import type { ServiceModule } from "../service-host";
import type { DocumentStore } from "../store/port";

// Every index a service's store needs, created without starting the service: what its host creates (the
// outbox's, and the processed-event log's when it consumes events) and what its module declares. The
// chart's pre-install Job runs this for every service, so no replica builds an index on a large
// collection while it takes traffic; each service still ensures its indexes when it opens (idempotent).

export interface ServiceIndexOptions {
  /** EARSHOT_OUTBOX_RETENTION_HOURS in seconds: how long the outbox keeps a published event. */
  outboxRetentionSeconds: number;
}

export const ensureServiceIndexes = async (module: Pick<ServiceModule<never>, "name" | "consumers" | "ensureIndexes">, store: DocumentStore, options: ServiceIndexOptions): Promise<void> => {
  await new Outbox(store, systemClock, module.name.replace(/-/g, "_")).ensureIndexes(options.outboxRetentionSeconds);
  if ((module.consumers ?? []).length > 0) await ensureProcessedEventIndexes(store);
  await module.ensureIndexes?.(store);
};
