// Bluesky's Jetstream at 2,000 posts/s through the wired stream: a fake Jetstream on loopback publishes a
// burst paced at 2,000 posts/s for 5 s; the integration service's stream (bluesky/stream-runner.ts: lease,
// client, one matcher of every listening keyword, authors' profiles, hand-off to each project's poller with
// its post.collected events in the outbox, cursor saved once a second) reads it, on the embedded store. 100
// projects listen on Bluesky with 20 keywords each. One post in MATCH_EVERY (argument, default 100) mentions
// one of those keywords; the others mention nothing. Reports whether the stream kept up (when its last post
// was handed on after the last publish), the posts collected, and the CPU per post of the whole process
// (fake server, client, matching, store writes and outbox).
// Usage: node services/platform/test/ts-child.js bench/jetstream-bench.ts [MATCH_EVERY]
import { postFrame, startFakeJetstream } from "../services/integration/src/bluesky/jetstream-test-support";
import { openIntegrationWorld } from "../services/integration/src/test-support";
import { wireBlueskyStream } from "../services/integration/src/wiring";

const RATE = 2_000;
const SECONDS = 5;
const PROJECTS = 100;
const KEYWORDS = 20;
const WORDS = ["earshot", "bluesky", "firehose", "atproto", "matcher", "keyword", "launch", "outage", "pricing", "feature"];
const MATCH_EVERY = Number(process.argv[2] ?? 100);

const keywordValue = (p: number, k: number) => `${WORDS[k % WORDS.length]}${p}x${k}`;

async function main(): Promise<void> {
  const fake = await startFakeJetstream();
  const world = await openIntegrationWorld({ settings: { EARSHOT_BLUESKY_JETSTREAM_URL: fake.url } });
  for (let p = 0; p < PROJECTS; p++) {
    const projectId = await world.newProject({ enabledSources: ["bluesky"] });
    for (let k = 0; k < KEYWORDS; k++) await world.addKeyword(projectId, keywordValue(p, k), { sources: ["bluesky"] });
  }
  const stream = wireBlueskyStream(world.deps);
  await stream.tick();
  if (!stream.reading) throw new Error("the stream did not open");
  await new Promise((r) => setTimeout(r, 200));
  const eventsBefore = (await world.events()).length;

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const total = RATE * SECONDS;
  let sent = 0;
  // Paced in 10 ms ticks: each tick publishes what the rate allows by then, and moves the service's clock
  // as far, so the cursor is saved at its real cadence.
  let clockAt = t0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const t = performance.now();
      world.clock.advance(Math.round(t - clockAt));
      clockAt = t;
      const due = Math.min(total, Math.floor(((t - t0) / 1000) * RATE));
      const frames = [];
      for (; sent < due; sent++) {
        const text = sent % MATCH_EVERY === 0 ? `post ${sent} mentions ${keywordValue(sent % PROJECTS, sent % KEYWORDS)} today` : `post ${sent} about nothing in particular today`;
        frames.push(postFrame(sent, text));
      }
      if (frames.length) fake.publish(frames);
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  const publishedAt = performance.now();
  await stream.until(total);
  const handedAt = performance.now();
  await stream.settled();
  const cpu = process.cpuUsage(cpu0);
  const collected = (await world.events()).slice(eventsBefore).filter((e) => e.type === "post.collected").length;
  // Closing writes the last cursor (saves are spaced a second apart): it must be the last post's.
  await stream.stop();
  const saved = (await world.deps.collections.streams.findById("bluesky"))?.cursorUs;
  console.log(
    JSON.stringify({
      posts: total,
      rateAsked: RATE,
      projects: PROJECTS,
      keywordsPerProject: KEYWORDS,
      matchEvery: MATCH_EVERY,
      collected,
      publishSeconds: ((publishedAt - t0) / 1000).toFixed(2),
      lastPostHandedOnMsAfterPublish: (handedAt - publishedAt).toFixed(1),
      achievedPostsPerSecond: Math.round(total / ((handedAt - t0) / 1000)),
      cpuMicrosPerPost: ((cpu.user + cpu.system) / total).toFixed(1),
      cpuShareOfOneCore: (((cpu.user + cpu.system) / 1e6 / ((handedAt - t0) / 1000)) * 100).toFixed(1) + "%",
      lastCursorSaved: saved === postFrame(total - 1).time_us,
    }),
  );
  await world.close();
  await fake.close();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
