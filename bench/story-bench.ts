// Story grouping measured: pairwise precision and recall of the grouping ingest applies
// (services/mention/src/domain/stories) on a generated set of syndicated and unrelated posts
// (bench/story-data.ts), and, for choosing the text threshold, the same figures for the text signature
// alone at each distance. Also the cost of the signals per post.
// Usage: node services/platform/test/ts-child.js bench/story-bench.ts
import { placeBatch } from "../services/mention/src/domain/stories/assign-stories";
import { StoryIndex } from "../services/mention/src/domain/stories/story-index";
import { signatureOf, signatureWordsOf, similarityOf, storySignalsOf } from "../services/mention/src/domain/stories/story-signals";
import type { MentionDoc } from "../services/mention/src/store";
import { runBench } from "./bench-support";
import { storyPosts } from "./story-data";

const pairScores = (truth: readonly number[], predicted: readonly string[]) => {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (let i = 0; i < truth.length; i++) {
    for (let j = i + 1; j < truth.length; j++) {
      const same = truth[i] === truth[j];
      const grouped = predicted[i] === predicted[j];
      if (same && grouped) tp += 1;
      else if (grouped) fp += 1;
      else if (same) fn += 1;
    }
  }
  return { precision: tp / (tp + fp), recall: tp / (tp + fn), pairs: tp + fn };
};

const main = async () => {
  for (const seed of [20261128, 7, 424242]) {
    const posts = storyPosts(300, 600, seed);
    const matchedAt = new Date(Date.UTC(2026, 10, 1));
    const docs = posts.map((p, i) => ({ _id: `men_${String(i).padStart(26, "0")}`, projectId: "prj_1", url: p.url, text: p.text, publishedAt: p.publishedAt, matchedAt }) as MentionDoc);
    // The grouping of one batch holding every post, against an empty index (placeBatch sorts `docs`, so
    // the truth is read through each doc's position in `posts`).
    const truthOf = new Map(docs.map((d, i) => [d, posts[i]!.truth]));
    const index = new StoryIndex(0);
    placeBatch(() => index, docs);
    const grouped = pairScores(docs.map((d) => truthOf.get(d)!), docs.map((d) => d.storyId!));
    console.log(`seed ${seed}: ${posts.length} posts, ${grouped.pairs} same-story pairs: precision ${grouped.precision.toFixed(3)}, recall ${grouped.recall.toFixed(3)}, stories ${new Set(docs.map((d) => d.storyId)).size} (true ${new Set(posts.map((p) => p.truth)).size})`);

    // The text signature alone, by threshold, on the pairs of text-story copies and unrelated posts.
    const texts = posts.filter((p) => !/https?:/.test(p.text) || p.truth >= 300);
    const sims = texts.map((p) => signatureOf(signatureWordsOf(undefined, p.text)));
    const rows: string[] = [];
    for (const t of [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]) {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const close = similarityOf(sims[i]!, sims[j]!) >= t;
          const same = texts[i]!.truth === texts[j]!.truth;
          if (close && same) tp += 1;
          else if (close) fp += 1;
          else if (same) fn += 1;
        }
      }
      rows.push(`t=${t}: p ${(tp / (tp + fp || 1)).toFixed(3)} r ${(tp / (tp + fn)).toFixed(3)}`);
    }
    console.log(`  signature alone: ${rows.join(" | ")}`);
  }
  const posts = storyPosts(300, 600, 1);
  const started = process.hrtime.bigint();
  const rounds = 20;
  for (let r = 0; r < rounds; r++) for (const p of posts) storySignalsOf(undefined, p.text);
  console.log(`signals: ${(Number(process.hrtime.bigint() - started) / 1e3 / (rounds * posts.length)).toFixed(1)} µs a post`);
};

runBench(main);
