import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { checkPost, type Post } from "@earshot/platform/core";
import { SOURCE_WORDS } from "@earshot/platform/grpc";
import type { commonV1, mentionV1 } from "@earshot/proto";

// `earshot posts import`: a JSONL file of posts (the line format in post-format.ts and the README)
// streamed line by line and sent to the mention service's IngestPosts in batches, the path collected
// posts take too. Memory stays constant: one batch is read while the previous one is in flight. Each line
// is held to the service's own post check first (`checkPost` of `@earshot/platform/core`), so a bad line is reported with
// every one of its problems at once, without a round trip; what the service still refuses is reported
// the same way, with its line number.

export const DEFAULT_BATCH_SIZE = 500;
/** The service takes at most this many posts per call. */
export const MAX_BATCH_SIZE = 1000;

export interface ImportTotals {
  /** Non-blank lines read. */
  lines: number;
  created: number;
  duplicates: number;
  unmatched: number;
  skipped: number;
  /** Lines that are not posts: not JSON, not a valid post, or refused by the service. */
  bad: number;
}

export interface ImportOptions {
  file: string;
  projectId: string;
  batchSize: number;
  ingest: (posts: mentionV1.Post[]) => Promise<mentionV1.IngestPostsResponse>;
  /** A line that is not a post, with why (`path: message`, every problem of the line, `; ` between them). */
  badLine: (line: number, reason: string) => void;
}

class LineError extends Error {}

const problemsText = (problems: ReadonlyArray<{ path: string; message: string }>): string => problems.map((p) => `${p.path}: ${p.message}`).join("; ");

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON null reads as a field left out: tools write an absent value either way. */
const withoutNulls = (v: unknown): unknown =>
  isObject(v) ? Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (x === null ? [] : [[k, withoutNulls(x)]]))) : v;

/** int64 travels as a decimal string. */
const int64 = (n: number | undefined): string | undefined => (n === undefined ? undefined : String(n));

/** A checked post as the wire carries it: source as the enum, counts as decimal strings. */
const messageOf = (p: Post): mentionV1.Post => ({
  projectId: p.projectId,
  source: SOURCE_WORDS.value(p.source) ?? (0 as commonV1.Source),
  sourceId: p.sourceId,
  url: p.url,
  title: p.title,
  text: p.text,
  author: { id: p.author.id, handle: p.author.handle, name: p.author.name, url: p.author.url, followers: int64(p.author.followers) },
  publishedAt: p.publishedAt,
  collectedAt: p.collectedAt,
  lang: p.lang,
  parentId: p.parentId,
  metrics: p.metrics && { likes: String(p.metrics.likes), replies: String(p.metrics.replies), shares: String(p.metrics.shares), views: String(p.metrics.views) },
  subreddit: p.subreddit,
  channelId: p.channelId,
  channelHandle: p.channelHandle,
});

/** A JSONL line as the Post message; the project is the one imported into, whatever the line says. */
export const postFromLine = (line: string, projectId: string): mentionV1.Post => {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new LineError(`not JSON (${(err as Error).message})`);
  }
  const checked = checkPost(isObject(value) ? { ...(withoutNulls(value) as object), projectId } : value);
  if (!checked.ok) throw new LineError(problemsText(checked.errors));
  return messageOf(checked.post);
};

interface BadLine {
  line: number;
  reason: string;
}

export const importPosts = async (options: ImportOptions): Promise<ImportTotals> => {
  const totals: ImportTotals = { lines: 0, created: 0, duplicates: 0, unmatched: 0, skipped: 0, bad: 0 };
  // The batch being read: its posts, their line numbers, and the lines of it that are not posts.
  let posts: mentionV1.Post[] = [];
  let lineNumbers: number[] = [];
  let badLines: BadLine[] = [];
  let inFlight: Promise<void> = Promise.resolve();

  const report = (bad: BadLine[]) => {
    totals.bad += bad.length;
    for (const b of bad.sort((x, y) => x.line - y.line)) options.badLine(b.line, b.reason);
  };

  const send = async (batch: mentionV1.Post[], lines: number[], bad: BadLine[]): Promise<void> => {
    if (batch.length > 0) {
      const res = await options.ingest(batch);
      totals.created += res.created;
      totals.duplicates += res.duplicates;
      totals.unmatched += res.unmatched;
      totals.skipped += res.skipped;
      for (const r of res.refused) bad.push({ line: lines[r.index] ?? 0, reason: problemsText(r.problems) });
    }
    // Batches settle in order, so bad lines are reported in line order.
    report(bad);
  };

  const flush = async () => {
    if (posts.length === 0 && badLines.length === 0) return;
    const [batch, lines, bad] = [posts, lineNumbers, badLines];
    posts = [];
    lineNumbers = [];
    badLines = [];
    // One batch in flight while the next is read: reading overlaps the service's work, memory stays bounded.
    await inFlight;
    inFlight = send(batch, lines, bad);
    // Handled now (awaited at the next flush or the end), so a failure is not reported as unhandled meanwhile.
    inFlight.catch(() => undefined);
  };

  const reader = createInterface({ input: createReadStream(options.file, { encoding: "utf8" }), crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of reader) {
      lineNumber += 1;
      if (line.trim() === "") continue;
      totals.lines += 1;
      try {
        posts.push(postFromLine(line, options.projectId));
        lineNumbers.push(lineNumber);
      } catch (err) {
        if (!(err instanceof LineError)) throw err;
        badLines.push({ line: lineNumber, reason: err.message });
      }
      if (posts.length + badLines.length >= options.batchSize) await flush();
    }
    await flush();
  } finally {
    reader.close();
  }
  await inFlight;
  return totals;
};
