import type { CollectedPost } from "../collectors/collector";
import type { IntegrationDeps } from "../domain/deps";
import { StoreLease } from "../domain/store-lease";
import { deliverStreamed } from "../domain/stream-delivery";
import { BLUESKY_STREAM_ID, type StreamDoc } from "../store";
import { JetstreamClient, type JetstreamCursorStore } from "./jetstream-client";
import type { BlueskyProfiles } from "./profiles";
import { compileStreamMatcher, type StreamMatcher } from "./stream-matcher";

// Bluesky's firehose as a source: one Jetstream connection for the whole instance, held by whichever
// replica holds the stream's lease (domain/store-lease.ts on the `streams` document, renewed every tick), and only
// while some active project enables Bluesky with an active keyword on it (the firehose is heavy to read
// for nobody). Every post goes through one matcher of all those keywords; the posts that match get their
// authors' profiles and are handed to each matching project's poller as a poll's would be
// (domain/stream-delivery.ts). The cursor is saved in the lease's document after the posts up to it were
// handed on, so a restart, or another replica taking over, resumes without loss; what a resume reads twice
// its poller's recent ids drop.

const WAKE_DELAY_MS = 200;

export interface BlueskyStreamOptions {
  /** How often the lease is renewed and the keywords read again (a new keyword listens within this). */
  tickMs?: number;
  /** How long a lease lasts unrenewed: a replica that died is replaced after this. */
  leaseMs?: number;
  /** The cursor is written at most this often (a crash replays at most this much, which the recent ids absorb). */
  saveEveryMs?: number;
  backoff?: { initialMs: number; maxMs: number };
}

export class BlueskyStream {
  private client: JetstreamClient | undefined;
  private matcher: StreamMatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = true;
  private readonly tickMs: number;
  private readonly saveEveryMs: number;
  private readonly lease: StoreLease<StreamDoc>;

  constructor(
    private readonly deps: IntegrationDeps,
    private readonly profiles: BlueskyProfiles,
    private readonly options: BlueskyStreamOptions = {},
  ) {
    this.tickMs = options.tickMs ?? 15_000;
    this.saveEveryMs = options.saveEveryMs ?? 1_000;
    this.lease = new StoreLease<StreamDoc>({
      collection: deps.collections.streams,
      id: BLUESKY_STREAM_ID,
      owner: deps.replicaId,
      ttlMs: options.leaseMs ?? 60_000,
      now: () => deps.clock.now(),
      initial: () => ({ connected: false, savedAt: deps.clock.now(), reconnects: 0 }),
    });
  }

  /** Ticks on real timers until stop(). */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * A project or keyword changed: tick soon rather than at the next interval, so a new keyword listens
   * within a moment (changes in a burst share one tick).
   */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.wakeAgain = true;
    else this.schedule(WAKE_DELAY_MS);
  }

  private running = false;
  /** A change arrived during a tick, which may have read the keywords before it. */
  private wakeAgain = false;

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = true;
      this.ticking = this.tick()
        .catch((err: unknown) => this.deps.logger.warn({ err }, "bluesky stream: tick failed"))
        .finally(() => {
          this.running = false;
          const again = this.wakeAgain;
          this.wakeAgain = false;
          if (!this.stopped) this.schedule(again ? WAKE_DELAY_MS : this.tickMs);
        });
    }, delayMs);
    // A background loop: it must not keep the process alive once everything else has stopped.
    this.timer.unref();
  }

  /** One step: the keywords read again, the lease taken or renewed (or given back), the connection opened or closed. */
  async tick(): Promise<void> {
    this.matcher = await compileStreamMatcher(this.deps.collections);
    if (this.matcher.keywords === 0) {
      await this.closeClient();
      await this.release();
      return;
    }
    if (!(await this.lease.hold())) {
      await this.closeClient();
      return;
    }
    if (!this.client) {
      this.client = new JetstreamClient({
        url: this.deps.settings.EARSHOT_BLUESKY_JETSTREAM_URL,
        cursors: this.cursorStore(),
        onPosts: (posts) => this.handOn(posts),
        now: () => this.deps.clock.now().getTime(),
        log: (message) => this.deps.logger.info({ source: "bluesky" }, message),
        ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
      });
      await this.client.start();
    }
    await this.writeStatus();
  }

  /**
   * The connection's state in the lease's document every tick, not only with a cursor: a dropped or stalled
   * stream hands nothing on, and source health must still see it (its lag keeps growing from the last cursor).
   */
  private async writeStatus(): Promise<void> {
    const health = this.client?.health();
    if (!health) return;
    const fields = { connected: health.connected, savedAt: this.now(), reconnects: health.reconnects };
    // An error is the current connection's: one that reconnected since has none.
    await this.deps.collections.streams.updateOne(this.lease.heldBy(), health.lastError ? { $set: { ...fields, lastError: health.lastError } } : { $set: fields, $unset: { lastError: true } });
  }

  /** Closes the connection once what it received is handed on, and gives the lease back. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await this.closeClient();
    await this.release();
  }

  /** Resolves once every frame received so far is handed on and its cursor saved. */
  async settled(): Promise<void> {
    await this.client?.settled();
  }

  get reading(): boolean {
    return this.client !== undefined;
  }

  /** Posts read from the stream and handed on (matched or not) since this process started. */
  get handedOn(): number {
    return this.handed;
  }

  /** Resolves once `n` posts in all have been read and handed on: what a test or a bench waits on. */
  until(n: number): Promise<void> {
    if (this.handed >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  private handed = 0;
  private waiters: Array<{ n: number; resolve: () => void }> = [];

  private async handOn(posts: CollectedPost[]): Promise<void> {
    await this.deliver(posts);
    this.handed += posts.length;
    this.waiters = this.waiters.filter((w) => (this.handed >= w.n ? (w.resolve(), false) : true));
  }

  private async deliver(posts: CollectedPost[]): Promise<void> {
    const matcher = this.matcher;
    if (!matcher) return;
    const byProject = new Map<string, CollectedPost[]>();
    for (const post of posts) {
      for (const projectId of matcher.projectsFor(post)) {
        const list = byProject.get(projectId);
        if (list) list.push(post);
        else byProject.set(projectId, [post]);
      }
    }
    if (byProject.size === 0) return;
    const matched = [...new Set([...byProject.values()].flat())];
    const named = new Map((await this.profiles.withAuthors(matched)).map((p) => [p.sourceId, p]));
    for (const [projectId, list] of byProject) await deliverStreamed(this.deps, projectId, "bluesky", list.map((p) => named.get(p.sourceId) ?? p));
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    if (!client) return;
    await client.stop();
    this.client = undefined;
    const last = this.unsaved;
    if (last !== undefined) await this.writeCursor(last).catch((err: unknown) => this.deps.logger.warn({ err }, "bluesky stream: last cursor not saved"));
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  private async release(): Promise<void> {
    await this.lease.release({ connected: false, savedAt: this.now() });
  }

  /** The cursor kept in the lease's document, written only by the lease's holder, at most every saveEveryMs. */
  private cursorStore(): JetstreamCursorStore {
    return {
      load: async () => (await this.deps.collections.streams.findById(BLUESKY_STREAM_ID))?.cursorUs,
      save: async (timeUs) => {
        if (this.now().getTime() - this.lastWrite < this.saveEveryMs) {
          this.unsaved = timeUs;
          return;
        }
        await this.writeCursor(timeUs);
      },
    };
  }

  private lastWrite = Number.NEGATIVE_INFINITY;
  /** A cursor handed on but not yet written (saves are spaced): closeClient writes it. */
  private unsaved: number | undefined;

  private async writeCursor(timeUs: number): Promise<void> {
    const now = this.now();
    this.lastWrite = now.getTime();
    this.unsaved = undefined;
    const health = this.client?.health();
    const fields: Partial<StreamDoc> = { cursorUs: timeUs, connected: health?.connected ?? false, savedAt: now, reconnects: health?.reconnects ?? 0 };
    const res = await this.deps.collections.streams.updateOne(
      this.lease.heldBy(),
      health?.lastError ? { $set: { ...fields, lastError: health.lastError } } : { $set: fields, $unset: { lastError: true } },
    );
    // Another replica holds the stream now: what this one read is handed on, but the cursor is no longer its own.
    if (res.matchedCount === 0) throw new Error("the Bluesky stream's lease was lost");
  }
}
