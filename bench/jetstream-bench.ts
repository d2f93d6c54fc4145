// Bluesky's Jetstream at 2,000 posts/s: a fake Jetstream on loopback publishes a burst paced at 2,000
// posts/s for 5 s; the client reads every frame, hands batches on, and each post runs through the matcher of
// each of 100 projects (20 keywords each, every one enabling Bluesky). Reports whether the client kept up
// (its lag when the burst ends), and the CPU per post of the whole process (client, fake server and matching).
// Usage: node services/platform/test/ts-child.js bench/jetstream-bench.ts
import { compileMatcher, type MatcherKeyword } from "../services/contracts/src/matcher/index";
import { JetstreamClient, MemoryCursorStore } from "../services/integration/src/bluesky/jetstream-client";
import { postFrame, startFakeJetstream } from "../services/integration/src/bluesky/jetstream-test-support";

const RATE = 2_000;
const SECONDS = 5;
const PROJECTS = 100;
const WORDS = ["earshot", "bluesky", "firehose", "atproto", "matcher", "keyword", "launch", "outage", "pricing", "feature"];

async function main(): Promise<void> {
  const matchers = Array.from({ length: PROJECTS }, (_, p) =>
    compileMatcher(
      Array.from({ length: 20 }, (_, k): MatcherKeyword => ({ id: `k${p}-${k}`, groupId: `g${p}`, value: `${WORDS[k % WORDS.length]}${p}x${k}`, aliases: [], excludedTerms: [], caseSensitive: false, sources: ["bluesky"], filters: {} })),
    ),
  );
  const fake = await startFakeJetstream();
  let received = 0;
  let hits = 0;
  let lastBatchAt = 0;
  const client = new JetstreamClient({
    url: fake.url,
    cursors: new MemoryCursorStore(),
    onPosts: (posts) => {
      for (const post of posts) for (const m of matchers) hits += m.match(post as never).length;
      received += posts.length;
      lastBatchAt = performance.now();
      return Promise.resolve();
    },
  });
  await client.start();
  await new Promise((r) => setTimeout(r, 200));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const total = RATE * SECONDS;
  let sent = 0;
  // Paced in 10 ms ticks: each tick publishes what the rate allows by then.
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * RATE));
      const frames = [];
      for (; sent < due; sent++) frames.push(postFrame(sent, `post ${sent} mentions ${WORDS[sent % WORDS.length]}${sent % PROJECTS}x${sent % 20} today`));
      if (frames.length) fake.publish(frames);
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  const publishedAt = performance.now();
  while (received < total) await new Promise((r) => setImmediate(r));
  await client.settled();
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (lastBatchAt - t0) / 1000;
  console.log(JSON.stringify({ posts: total, rateAsked: RATE, projects: PROJECTS, keywordsPerProject: 20, hits, publishSeconds: ((publishedAt - t0) / 1000).toFixed(2), lastPostHandedOnMsAfterPublish: (lastBatchAt - publishedAt).toFixed(1), achievedPostsPerSecond: Math.round(total / elapsed), cpuMicrosPerPost: ((cpu.user + cpu.system) / total).toFixed(1), cpuShareOfOneCore: (((cpu.user + cpu.system) / 1e6 / ((publishedAt - t0) / 1000)) * 100).toFixed(1) + "%" }));
  await client.stop();
  await fake.close();
}

void main();
