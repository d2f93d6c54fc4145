import { createLogger } from "@earshot/platform";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { integrationSettingsOf } from "../config";
import type { CollectKeyword, PollInput, QuotaLedger } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { ProviderHttp } from "./provider-http";

// What the X and Reddit collector tests share: simulators on a clock the test moves, collector deps
// pointing at them (fast, seeded retries), a log the test can read, keywords, and a check of a
// collected post against the bounds the mention service accepts (the platform's post check).

export const TEST_NOW = Date.parse("2026-11-23T12:00:00.000Z");
export const TEST_INTERVAL_SECONDS = 300;

/** A seeded PRNG (mulberry32) for retry jitter. */
export const seededRandom = (seed = 20261123): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const noQuota: QuotaLedger = {
  take: () => Promise.reject(new Error("X and Reddit meter by request window, not a daily ledger")),
  left: () => Promise.reject(new Error("X and Reddit meter by request window, not a daily ledger")),
};

export interface CollectorKit {
  sims: RunningSimulators;
  clock: { now: number };
  deps: CollectorDeps;
  logs: Array<Record<string, unknown>>;
  input(keywords: CollectKeyword[], cursor?: unknown): PollInput;
  close(): Promise<void>;
}

export const startCollectorKit = async (options: { platforms: Array<"x" | "reddit">; generate?: boolean; settings?: Record<string, string> }): Promise<CollectorKit> => {
  const clock = { now: TEST_NOW };
  const sims = await startSimulators({ platforms: options.platforms, generate: options.generate ?? false, now: () => clock.now });
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger("integration-test", { level: "warn", destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
  const settings = integrationSettingsOf({ ...sims.settings, EARSHOT_POLL_INTERVAL_SECONDS: String(TEST_INTERVAL_SECONDS), ...options.settings });
  const deps: CollectorDeps = {
    settings,
    http: new ProviderHttp({ retries: 2, retryBaseMs: 1, random: seededRandom(), now: () => clock.now }),
    quota: noQuota,
    logger,
    now: () => new Date(clock.now),
  };
  return {
    sims,
    clock,
    deps,
    logs,
    input: (keywords, cursor) => ({ projectId: "prj_test", keywords, cursor, now: new Date(clock.now), signal: new AbortController().signal }),
    close: () => sims.close(),
  };
};

let nextId = 0;
export const keyword = (value: string, more: Partial<Omit<CollectKeyword, "value">> = {}): CollectKeyword => ({
  id: more.id ?? `kw_${String(++nextId).padStart(4, "0")}`,
  value,
  aliases: [],
  excludedTerms: [],
  caseSensitive: false,
  sources: ["x", "reddit"],
  filters: {},
  ...more,
});
