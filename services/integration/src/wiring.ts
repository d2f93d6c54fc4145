import { randomUUID } from "node:crypto";
import type { Clock, Logger, Mailer, Outbox, Source } from "@earshot/platform/core";
import { SOURCES, TokenSealer } from "@earshot/platform/core";
import { urlRefusal } from "@earshot/platform";
import { BlueskyProfiles } from "./bluesky/profiles";
import { BlueskyStream, type BlueskyStreamOptions } from "./bluesky/stream-runner";
import { createCollectors } from "./collectors";
import { ProviderHttp, type ProviderHttpOptions } from "./collectors/provider-http";
import type { IntegrationSettings } from "./config";
import type { IntegrationDeps } from "./domain/deps";
import { createQuotaLedger } from "./domain/quota-ledger";
import { LinkedinApi } from "./linkedin/linkedin-api";
import { BLUESKY_STREAM_ID, type IntegrationCollections } from "./store";

// How the service's parts are put together from its settings: the service and the domain tests build
// them the same way.

export interface WiringInput {
  collections: IntegrationCollections;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
  settings: IntegrationSettings;
  key: Buffer;
  http?: ProviderHttpOptions;
  replicaId?: string;
  /** Mail to people; tests capture it. */
  mailer: Mailer;
  /** The origin mail links to (`EARSHOT_PUBLIC_URL`, else the edge's default). */
  publicUrl: string;
}

export const simulatedSourcesOf = (settings: IntegrationSettings): Set<Source> =>
  new Set(
    settings.EARSHOT_SIMULATED_SOURCES.split(",")
      .map((s) => s.trim())
      .filter((s): s is Source => (SOURCES as readonly string[]).includes(s)),
  );

export const wireIntegration = (input: WiringInput): IntegrationDeps => {
  const now = () => input.clock.now();
  const collectorDeps = {
    settings: input.settings,
    http: new ProviderHttp({ ...input.http, now: () => now().getTime() }),
    quota: createQuotaLedger(input.collections, input.settings),
    logger: input.logger,
    now,
    streamDoc: () => input.collections.streams.findById(BLUESKY_STREAM_ID),
    feeds: input.collections.feeds,
  };
  return {
    collections: input.collections,
    outbox: input.outbox,
    clock: input.clock,
    logger: input.logger,
    settings: input.settings,
    collectors: createCollectors(collectorDeps),
    quota: collectorDeps.quota,
    linkedinApi: new LinkedinApi(collectorDeps),
    sealer: new TokenSealer(input.key),
    replicaId: input.replicaId ?? `${process.pid}-${randomUUID().slice(0, 8)}`,
    simulated: simulatedSourcesOf(input.settings),
    refusedUrl: urlRefusal({ allowPrivateNetworks: input.settings.EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS }),
    mailer: input.mailer,
    publicUrl: input.publicUrl,
  };
};

/** The Bluesky firehose reader for these parts (started by the service; tests drive its ticks). */
export const wireBlueskyStream = (deps: IntegrationDeps, http: ProviderHttpOptions = {}, options: BlueskyStreamOptions = {}): BlueskyStream => {
  const now = () => deps.clock.now().getTime();
  // Lookups run inside the stream's hand-off: a slow AppView must not hold the firehose back, so one short try each.
  const profiles = new BlueskyProfiles(new ProviderHttp({ retries: 0, timeoutMs: 5_000, ...http, now }), deps.settings.EARSHOT_BLUESKY_PUBLIC_API_URL, now, (err) =>
    deps.logger.warn({ err, source: "bluesky" }, "bluesky: profiles not read; authors stay DIDs"),
  );
  return new BlueskyStream(deps, profiles, options);
};
