import type { Source } from "@earshot/platform/core";
import type { CollectedPost, Collector, PollInput, PollOutcome } from "./collectors/collector";

// A collector of our own interface for tests of what surrounds collectors (scheduling, leases, health):
// it answers each poll with what the test scripted, remembers every poll it was asked for, counts polls
// running at once per project, and can hold a poll open until the test lets it finish.

export type Answer = PollOutcome | Error | ((input: PollInput) => PollOutcome | Promise<PollOutcome>);

interface Gate {
  entered: Promise<PollInput>;
  release: () => void;
}

export class TestCollector implements Collector {
  readonly polls: PollInput[] = [];
  /** The most polls of one project that ran at the same time. */
  maxConcurrentPerProject = 0;
  private readonly running = new Map<string, number>();
  private readonly answers: Answer[] = [];
  private gate: { enter: (input: PollInput) => void; opened: Promise<void> } | undefined;

  /** As the real collectors: every platform but LinkedIn is searched by keyword. */
  readonly searchesKeywords: boolean;

  constructor(
    readonly source: Source,
    readonly configured = true,
    /** What a poll answers when nothing is scripted. */
    private readonly fallback: Answer = { posts: [], cursor: null, skipped: 0 },
  ) {
    this.searchesKeywords = source !== "linkedin";
  }

  /** The next polls answer these, in order, then the fallback. */
  answer(...answers: Answer[]): this {
    this.answers.push(...answers);
    return this;
  }

  /** Holds the next poll open: `entered` resolves when it starts, `release` lets it answer. */
  hold(): Gate {
    let enter!: (input: PollInput) => void;
    let release!: () => void;
    const entered = new Promise<PollInput>((resolve) => (enter = resolve));
    const opened = new Promise<void>((resolve) => (release = resolve));
    this.gate = { enter, opened };
    return { entered, release };
  }

  pollsOf(projectId: string): PollInput[] {
    return this.polls.filter((p) => p.projectId === projectId);
  }

  async poll(input: PollInput): Promise<PollOutcome> {
    this.polls.push(input);
    const now = (this.running.get(input.projectId) ?? 0) + 1;
    this.running.set(input.projectId, now);
    this.maxConcurrentPerProject = Math.max(this.maxConcurrentPerProject, now);
    try {
      const gate = this.gate;
      this.gate = undefined;
      if (gate) {
        gate.enter(input);
        await gate.opened;
      } else {
        // Yield to the event loop, so polls of other schedulers interleave with this one.
        await new Promise((resolve) => setImmediate(resolve));
      }
      const answer = this.answers.shift() ?? this.fallback;
      if (answer instanceof Error) throw answer;
      return typeof answer === "function" ? await answer(input) : answer;
    } finally {
      this.running.set(input.projectId, (this.running.get(input.projectId) ?? 1) - 1);
    }
  }
}

let n = 0;

/** A post as a collector would find it, published `agoMs` before `now`. */
export const testPost = (source: Source, now: Date, agoMs = 1_000, more: Partial<CollectedPost> = {}): CollectedPost => {
  n += 1;
  return {
    source,
    sourceId: `${source}-${n}`,
    url: `https://example.com/${source}/${n}`,
    text: `a post about acme number ${n}`,
    author: { id: `a${n}`, handle: `author${n}`, name: `Author ${n}` },
    publishedAt: new Date(now.getTime() - agoMs).toISOString(),
    ...more,
  };
};
