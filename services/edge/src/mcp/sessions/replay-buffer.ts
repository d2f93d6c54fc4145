// What a session's stream sent lately, kept by the replica holding the stream (also while the stream is
// broken) so that a client reconnecting with Last-Event-ID gets what it missed. Bounded both ways: the last
// REPLAY_MAX_EVENTS events and none older than REPLAY_MAX_AGE_MS, whichever keeps fewer.
//
// Event ids are `<stream key>-<n>`: n increases per session on this replica; the key is drawn when the
// replica first holds the session, so an id from another replica (or from before a restart) is never
// mistaken for one of this buffer's.

export const REPLAY_MAX_EVENTS = 100;
export const REPLAY_MAX_AGE_MS = 10 * 60 * 1000;

export interface BufferedEvent {
  id: string;
  /** The SSE data: the JSON-RPC notification. */
  data: string;
  at: number;
}

export interface Replay {
  events: BufferedEvent[];
  /** False when the client missed events the buffer no longer holds (or the id is not this buffer's). */
  complete: boolean;
}

export class ReplayBuffer {
  private readonly events: BufferedEvent[] = [];
  private next = 1;

  constructor(
    readonly key: string,
    private readonly now: () => number = Date.now,
    private readonly maxEvents = REPLAY_MAX_EVENTS,
    private readonly maxAgeMs = REPLAY_MAX_AGE_MS,
  ) {}

  /** Records an event and returns it with its id. */
  push(data: string): BufferedEvent {
    const event = { id: `${this.key}-${this.next++}`, data, at: this.now() };
    this.events.push(event);
    this.prune();
    return event;
  }

  /** Events held now. */
  get size(): number {
    this.prune();
    return this.events.length;
  }

  /** The events after `lastEventId`, oldest first. */
  after(lastEventId: string): Replay {
    this.prune();
    const n = this.sequenceOf(lastEventId);
    if (n === undefined) return { events: [...this.events], complete: false };
    const events = this.events.filter((e) => (this.sequenceOf(e.id) ?? 0) > n);
    const first = this.events[0];
    // Complete when nothing after n has been dropped: the oldest kept is at most n + 1, or nothing was sent since.
    const complete = n >= this.next - 1 || (first !== undefined && (this.sequenceOf(first.id) ?? 0) <= n + 1);
    return { events, complete };
  }

  private sequenceOf(id: string): number | undefined {
    const dash = id.lastIndexOf("-");
    if (dash < 0 || id.slice(0, dash) !== this.key) return undefined;
    const n = Number(id.slice(dash + 1));
    return Number.isSafeInteger(n) && n >= 0 && n < this.next ? n : undefined;
  }

  private prune(): void {
    const oldest = this.now() - this.maxAgeMs;
    while (this.events.length > this.maxEvents || (this.events.length > 0 && (this.events[0] as BufferedEvent).at < oldest)) this.events.shift();
  }
}
