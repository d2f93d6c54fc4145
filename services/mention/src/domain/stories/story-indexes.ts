import type { MentionDeps } from "../deps";
import { replay, type Replayed, STORY_WINDOW_MS, StoryIndex } from "./story-index";

// This process's story indexes, one per project, built on the project's first post by replaying the
// mentions ingested in the last two story windows, then kept current by the process's own commits and by
// reading, when a commit finds the project's change sequence moved past its index (another replica's
// commits), the mentions created since. The store stays the arbiter: a mention is placed against an index
// at the sequence number its commit then takes, or placed again (assign-stories.ts). An index unused for
// an hour is dropped (a project that stopped posting, was archived or deleted, holds no memory); its next
// post builds it again, as a new replica's would.

/** Mentions read per page while replaying. */
const PAGE = 1_000;

/**
 * How far back a first replay reads: a claim can still hold that lapses within the window, and whether a
 * claim was made depended on the claims held before it (up to a window earlier again).
 */
const REPLAY_SPAN_MS = 2 * STORY_WINDOW_MS;

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** An index unused this long is dropped; the sweep looks at most this often. */
export const STORY_INDEX_IDLE_MS = 3_600_000;
const SWEEP_EVERY_MS = 60_000;

export class StoryIndexes {
  private readonly indexes = new Map<string, StoryIndex>();
  private readonly loading = new Map<string, Promise<StoryIndex>>();
  /** When each project's index was last asked for. */
  private readonly usedAt = new Map<string, number>();
  private sweptAt = 0;
  private replays = 0;

  /** How many projects' indexes this process holds. */
  get size(): number {
    return this.indexes.size;
  }

  /** Mentions read to build or catch up indexes so far. */
  get replayed(): number {
    return this.replays;
  }

  /** The project's index, built first if this process has none. */
  indexFor(deps: Pick<MentionDeps, "collections" | "clock">, projectId: string): StoryIndex | Promise<StoryIndex> {
    const now = deps.clock.now().getTime();
    this.sweep(now);
    this.usedAt.set(projectId, now);
    const index = this.indexes.get(projectId);
    if (index) return index;
    let load = this.loading.get(projectId);
    if (!load) {
      load = this.build(deps, projectId).finally(() => this.loading.delete(projectId));
      this.loading.set(projectId, load);
    }
    return load;
  }

  /** Drops the indexes unused for STORY_INDEX_IDLE_MS (none being built). */
  private sweep(now: number): void {
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    for (const [projectId, at] of this.usedAt) {
      if (now - at < STORY_INDEX_IDLE_MS || this.loading.has(projectId)) continue;
      this.indexes.delete(projectId);
      this.usedAt.delete(projectId);
    }
  }

  private async build(deps: Pick<MentionDeps, "collections" | "clock">, projectId: string): Promise<StoryIndex> {
    const sequence = await deps.collections.sequences.findById(projectId);
    const head = sequence?.seq ?? 0;
    // The change feed's day markers say from which number on the mentions were created within the span.
    const fromDay = utcDay(new Date(deps.clock.now().getTime() - REPLAY_SPAN_MS));
    const from = sequence?.days.find((d) => d.day >= fromDay)?.seq ?? head;
    const index = new StoryIndex(head);
    replay(index, await this.createdBetween(deps, projectId, from, head));
    this.indexes.set(projectId, index);
    return index;
  }

  /**
   * Replays the mentions created after the index's head up to `head` (a number a commit found the project's
   * sequence at, so every mention numbered up to it is stored). Another catch-up of the project that moved
   * the index while this one read wins; the caller's next commit tells whether more is missing.
   */
  async catchUp(deps: Pick<MentionDeps, "collections" | "clock">, projectId: string, head: number): Promise<void> {
    const index = await this.indexFor(deps, projectId);
    const from = index.head;
    if (head <= from) return;
    const created = await this.createdBetween(deps, projectId, from, head);
    if (index.head !== from) return;
    replay(index, created);
    index.head = head;
  }

  /** The project's mentions numbered after `from` at creation, up to `to`: read by change number (indexed), in pages. */
  private async createdBetween(deps: Pick<MentionDeps, "collections">, projectId: string, from: number, to: number): Promise<Replayed[]> {
    const out: Replayed[] = [];
    let after = from;
    for (;;) {
      const page = await deps.collections.mentions.find({ projectId, changeSeq: { $gt: after } }, { sort: { changeSeq: 1 }, limit: PAGE });
      this.replays += page.length;
      // A mention changed since (triaged, rated) is read again under its later number; only its creation counts.
      for (const m of page) {
        if (m.createdSeq === undefined || m.createdSeq <= from || m.createdSeq > to) continue;
        // Only what placing needs is kept: a first replay may hold days of a busy project's mentions.
        out.push({ _id: m._id, publishedAt: m.publishedAt, matchedAt: m.matchedAt, storyId: m.storyId, createdSeq: m.createdSeq, title: m.title, text: m.text });
      }
      if (page.length < PAGE) return out;
      after = page.at(-1)!.changeSeq!;
    }
  }
}
