import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { SOURCE_WORDS } from "@earshot/platform/grpc";
import type { commonV1, mentionV1 } from "@earshot/proto";

// `earshot posts import`: a JSONL file of posts (one DESIGN.md Post per line: source as a word, ISO times)
// streamed line by line and sent to the mention service's IngestPosts in batches, the path collected
// posts take too. Memory stays constant: one batch is read while the previous one is in flight. Lines are
// only decoded here (JSON, the types the wire needs); the service checks the posts and names each one it
// refuses, which is reported with its line number.

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
  /** Lines that are not posts: not JSON, wrong types, or refused by the service. */
  bad: number;
}

export interface ImportOptions {
  file: string;
  projectId: string;
  batchSize: number;
  ingest: (posts: mentionV1.Post[]) => Promise<mentionV1.IngestPostsResponse>;
  /** A line that is not a post, with why (`path: message`). */
  badLine: (line: number, reason: string) => void;
}

class LineError extends Error {}

const kindOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`);

const string = (o: Record<string, unknown>, key: string, path = key): string => {
  const v = o[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new LineError(`${path}: must be a string, not ${kindOf(v)}`);
  return v;
};

const optionalString = (o: Record<string, unknown>, key: string, path = key): string | undefined => (o[key] === undefined || o[key] === null ? undefined : string(o, key, path));

const object = (v: unknown, path: string): Record<string, unknown> | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw new LineError(`${path}: must be an object, not ${kindOf(v)}`);
  return v as Record<string, unknown>;
};

/** int64 travels as a decimal string. */
const count = (o: Record<string, unknown>, key: string, path: string): string | undefined => {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw new LineError(`${path}: must be a whole number of at least 0`);
  return String(v);
};

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const instant = (o: Record<string, unknown>, key: string): Date | undefined => {
  const text = optionalString(o, key);
  if (text === undefined) return undefined;
  const date = new Date(text);
  if (!ISO_INSTANT.test(text) || Number.isNaN(date.getTime())) throw new LineError(`${key}: must be an ISO 8601 date-time such as 2026-11-01T00:00:00Z`);
  return date;
};

/** A JSONL line as the Post message; the project is the one imported into, whatever the line says. */
export const postFromLine = (line: string, projectId: string): mentionV1.Post => {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new LineError(`not JSON (${(err as Error).message})`);
  }
  const o = object(value, "post");
  if (!o) throw new LineError("post: must be an object, not null");
  const source = string(o, "source");
  const author = object(o.author, "author") ?? {};
  const metrics = object(o.metrics, "metrics");
  return {
    projectId,
    // An unknown word goes as "unspecified", which the service refuses naming the field.
    source: SOURCE_WORDS.value(source) ?? (0 as commonV1.Source),
    sourceId: string(o, "sourceId"),
    url: string(o, "url"),
    title: optionalString(o, "title"),
    text: string(o, "text"),
    author: {
      id: string(author, "id", "author.id"),
      handle: string(author, "handle", "author.handle"),
      name: string(author, "name", "author.name"),
      url: optionalString(author, "url", "author.url"),
      followers: count(author, "followers", "author.followers"),
    },
    publishedAt: instant(o, "publishedAt"),
    collectedAt: instant(o, "collectedAt"),
    lang: optionalString(o, "lang"),
    parentId: optionalString(o, "parentId"),
    metrics: metrics && {
      likes: count(metrics, "likes", "metrics.likes") ?? "0",
      replies: count(metrics, "replies", "metrics.replies") ?? "0",
      shares: count(metrics, "shares", "metrics.shares") ?? "0",
      views: count(metrics, "views", "metrics.views") ?? "0",
    },
    subreddit: optionalString(o, "subreddit"),
    channelId: optionalString(o, "channelId"),
    channelHandle: optionalString(o, "channelHandle"),
  };
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
      for (const r of res.refused) bad.push({ line: lines[r.index] ?? 0, reason: `${r.path}: ${r.message}` });
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
