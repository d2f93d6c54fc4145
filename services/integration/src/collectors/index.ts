import type { Source } from "@earshot/platform/core";
import type { Collector } from "./collector";
import { createBlueskyCollector } from "./bluesky";
import type { CollectorDeps } from "./collector-deps";
import { createGithubCollector } from "./github";
import { createHackernewsCollector } from "./hackernews";
import { createLinkedinCollector } from "./linkedin";
import { createRedditCollector } from "./reddit";
import { createRssCollector } from "./rss";
import { createXCollector } from "./x";
import { createYoutubeCollector } from "./youtube";

export type { CollectedPost, CollectKeyword, Collector, LinkedinAccess, PollInput, PollOutcome, QuotaLedger } from "./collector";
export type { CollectorDeps } from "./collector-deps";

export const createCollectors = (deps: CollectorDeps): Record<Source, Collector> => ({
  x: createXCollector(deps),
  reddit: createRedditCollector(deps),
  youtube: createYoutubeCollector(deps),
  linkedin: createLinkedinCollector(deps),
  hackernews: createHackernewsCollector(deps),
  bluesky: createBlueskyCollector(deps),
  rss: createRssCollector(deps),
  github: createGithubCollector(deps),
});
