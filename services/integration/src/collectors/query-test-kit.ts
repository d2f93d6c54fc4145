import { createLogger } from "@earshot/platform";
import { SOURCES } from "@earshot/platform/core";
import { type RunningSimulators, startSimulators } from "@earshot/simulators";
import { integrationSettingsOf } from "../config";
import type { CollectedPost, CollectKeyword, PollInput, QuotaLedger } from "./collector";
import type { CollectorDeps } from "./collector-deps";
import { ProviderHttp } from "./provider-http";

// What the X and Reddit collector tests share: simulators on a clock the test moves, collector deps
// pointing at them (fast, seeded retries), a log the test can read, keywords, and a check of a
// collected post against the bounds the mention service accepts (ingest-post.ts).

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

const within = (s: unknown, min: number, max: number) => typeof s === "string" && s.length >= min && s.length <= max;
const webUrl = (s: unknown) => within(s, 1, 2048) && /^https?:\/\/\S+$/i.test(s as string);
const count = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 0;

/** What is wrong with a post by the mention service's rules (empty when nothing). */
export const postProblems = (p: CollectedPost): string[] => {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => ok || problems.push(what);
  check((SOURCES as readonly string[]).includes(p.source), "source");
  check(within(p.sourceId, 1, 200), "sourceId");
  check(webUrl(p.url), "url");
  check(p.title === undefined || within(p.title, 0, 1000), "title");
  check(within(p.text, 0, 50_000), "text");
  check(within(p.author.id, 1, 200), "author.id");
  check(within(p.author.handle, 1, 200), "author.handle");
  check(within(p.author.name, 0, 500), "author.name");
  check(p.author.url === undefined || webUrl(p.author.url), "author.url");
  check(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(p.publishedAt) && !Number.isNaN(Date.parse(p.publishedAt)), "publishedAt");
  check(p.lang === undefined || within(p.lang, 0, 35), "lang");
  check(p.parentId === undefined || within(p.parentId, 0, 200), "parentId");
  check(p.subreddit === undefined || within(p.subreddit, 0, 100), "subreddit");
  check(p.metrics === undefined || [p.metrics.likes, p.metrics.replies, p.metrics.shares, p.metrics.views].every(count), "metrics");
  return problems;
};
