import WebSocket from "ws";
import type { CollectedPost } from "../collectors/collector";
import { POST_COLLECTION, readJetstreamFrame } from "./jetstream-wire";

// One Jetstream connection: posts are handed on in arrival order, in batches, and the cursor (the last
// frame's time_us) is saved only after its batch was handed on, so a crash replays rather than loses.
// A reconnect asks for a few seconds before the saved cursor, as Jetstream advises (time_us is not
// strictly unique across its instances); frames at or before what was already handed on are dropped.

/** Where the cursor survives a restart (the store in production, memory in tests). */
export interface JetstreamCursorStore {
  load(): Promise<number | undefined>;
  save(timeUs: number): Promise<void>;
}

export interface JetstreamOptions {
  url: string;
  cursors: JetstreamCursorStore;
  /** Receives each batch; the cursor moves past it once this resolves. */
  onPosts(posts: CollectedPost[]): Promise<void>;
  /** How far before the saved cursor a reconnect resumes; 5 s by default. */
  rewindUs?: number;
  backoff?: { initialMs: number; maxMs: number };
  now?: () => number;
  log?: (message: string) => void;
}

export interface JetstreamHealth {
  connected: boolean;
  /** now − the last handed-on frame's time_us; undefined before the first frame. */
  lagMs?: number;
  lastTimeUs?: number;
  reconnects: number;
  skipped: number;
  lastError?: string;
}

export class JetstreamClient {
  private socket: WebSocket | undefined;
  private stopped = true;
  private handedUs: number | undefined;
  private pending: { timeUs: number; post?: CollectedPost }[] = [];
  private draining: Promise<void> = Promise.resolve();
  private scheduled = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly state: JetstreamHealth = { connected: false, reconnects: 0, skipped: 0 };

  constructor(private readonly opts: JetstreamOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.handedUs = await this.opts.cursors.load();
    this.connect();
  }

  /** Closes the connection and waits until what was received is handed on and its cursor saved. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.socket?.removeAllListeners("close");
    this.socket?.close();
    this.socket = undefined;
    this.state.connected = false;
    this.schedule();
    await this.draining;
  }

  /** Resolves once every frame received so far is handed on and its cursor saved. */
  settled(): Promise<void> {
    return this.draining;
  }

  health(): JetstreamHealth {
    const now = (this.opts.now ?? Date.now)();
    const lagMs = this.handedUs === undefined ? undefined : Math.max(0, now - Math.floor(this.handedUs / 1000));
    return { ...this.state, lagMs, lastTimeUs: this.handedUs };
  }

  /** The URL asked for: posts only, from the rewound cursor when there is one. */
  streamUrl(): string {
    const url = new URL(this.opts.url);
    url.searchParams.set("wantedCollections", POST_COLLECTION);
    if (this.handedUs !== undefined) {
      const from = Math.max(0, this.handedUs - (this.opts.rewindUs ?? 5_000_000));
      url.searchParams.set("cursor", String(from));
    }
    return url.toString();
  }

  private connect(): void {
    if (this.stopped) return;
    const socket = new WebSocket(this.streamUrl());
    this.socket = socket;
    socket.on("open", () => {
      this.attempt = 0;
      this.state.connected = true;
      // Connected again: the error that dropped the last connection no longer describes the stream.
      this.state.lastError = undefined;
    });
    socket.on("message", (data: WebSocket.RawData) => this.receive(data.toString()));
    socket.on("error", (err: Error) => {
      this.state.lastError = err.message;
    });
    socket.on("close", () => {
      this.state.connected = false;
      if (this.socket !== socket || this.stopped) return;
      this.socket = undefined;
      this.state.reconnects += 1;
      const b = this.opts.backoff ?? { initialMs: 1_000, maxMs: 60_000 };
      const delay = Math.min(b.maxMs, b.initialMs * 2 ** this.attempt);
      this.attempt += 1;
      this.opts.log?.(`jetstream closed; reconnecting in ${delay} ms`);
      // The pending batch is handed on first so the reconnect's cursor covers it.
      this.retryTimer = setTimeout(() => {
        this.schedule();
        void this.draining.then(() => this.connect());
      }, delay);
      this.retryTimer.unref();
    });
  }

  private receive(raw: string): void {
    // A stopping socket can still deliver frames; they belong to the next run, which replays them.
    if (this.stopped) return;
    const frame = readJetstreamFrame(raw);
    if (!frame) {
      this.state.skipped += 1;
      return;
    }
    this.pending.push(frame);
    this.schedule();
  }

  // Frames that arrive while a batch is being handed on wait for the next batch: one hand-off at a time
  // keeps the cursor's order, and batching keeps the per-post cost to a push under a burst.
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.draining = this.draining.then(async () => {
      this.scheduled = false;
      const batch = this.pending;
      this.pending = [];
      const floor = this.handedUs ?? -1;
      let last = floor;
      const posts: CollectedPost[] = [];
      for (const f of batch) {
        if (f.timeUs <= floor) continue;
        if (f.post) posts.push(f.post);
        if (f.timeUs > last) last = f.timeUs;
      }
      if (last === floor) return;
      try {
        if (posts.length > 0) await this.opts.onPosts(posts);
        await this.opts.cursors.save(last);
        this.handedUs = last;
      } catch (err) {
        // Not handed on: the frames go back in front, and the next batch retries them.
        this.state.lastError = (err as Error).message;
        this.pending = batch.concat(this.pending);
      }
    });
  }
}

/** A cursor kept in memory: for tests and for a run without a store. */
export class MemoryCursorStore implements JetstreamCursorStore {
  constructor(public value?: number) {}
  load(): Promise<number | undefined> {
    return Promise.resolve(this.value);
  }
  save(timeUs: number): Promise<void> {
    this.value = timeUs;
    return Promise.resolve();
  }
}
