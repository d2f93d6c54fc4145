import { randomUUID } from "node:crypto";
import type { Clock, Logger, Outbox, Source } from "@earshot/platform/core";
import { SOURCES, TokenSealer } from "@earshot/platform/core";
import { createCollectors } from "./collectors";
import { ProviderHttp, type ProviderHttpOptions } from "./collectors/provider-http";
import type { IntegrationSettings } from "./config";
import type { IntegrationDeps } from "./domain/deps";
import { createQuotaLedger } from "./domain/quota-ledger";
import { LinkedinApi } from "./linkedin/linkedin-api";
import type { IntegrationCollections } from "./store";

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
  };
};
