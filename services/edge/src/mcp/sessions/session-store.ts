import { randomBytes } from "node:crypto";
import type { Clock, Collection, Doc, DocumentStore } from "@earshot/platform";

// MCP sessions, kept in the edge's store so that every MCP gateway replica knows them: a client's POSTs and
// its GET stream may reach different replicas. A session belongs to one credential (an API key's id, an
// OAuth token family), never to a raw token: what authenticates each request is still the request's own
// Authorization. A session holds its subscriptions (the resource URI and what it resolved to when the
// client subscribed), so the replica holding the stream reads them from here.
//
// Reads go through a short in-memory cache: an SDK client sends its session id on every tools/call, and
// checking it must cost about nothing. A session ended on another replica is seen here within CACHE_MS.

export const MCP_SESSION_COLLECTION = "mcp_sessions";

/** A session unused this long (no request, no open stream) is gone; its id then answers 404. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** Live sessions per credential; a new one beyond it ends the credential's least recently used. */
export const MAX_SESSIONS_PER_CREDENTIAL = 20;
/** Subscriptions per session. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 100;
/** How long a cached session is trusted before the store is asked again. */
const CACHE_MS = 2000;
/** lastUsedAt is written at most this often per session (each write moves the expiry along). */
const TOUCH_EVERY_MS = 60 * 1000;
const MAX_CACHED = 10_000;

export interface SessionSubscription {
  uri: string;
  projectId: string;
  /** Set for a saved view's mentions. */
  viewId?: string;
}

export interface McpSession extends Doc {
  credentialId: string;
  userId: string;
  createdAt: Date;
  lastUsedAt: Date;
  /** lastUsedAt + the idle period: the store's TTL index removes the session then. */
  expiresAt: Date;
  subscriptions: SessionSubscription[];
}

interface Cached {
  session: McpSession;
  readAt: number;
}

export interface SessionStoreOptions {
  idleMs?: number;
  maxPerCredential?: number;
}

const newSessionId = () => randomBytes(24).toString("base64url");

export class McpSessionStore {
  private readonly sessions: Collection<McpSession>;
  private readonly cache = new Map<string, Cached>();
  private readonly idleMs: number;
  private readonly maxPerCredential: number;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
    options: SessionStoreOptions = {},
  ) {
    this.sessions = store.collection<McpSession>(MCP_SESSION_COLLECTION);
    this.idleMs = options.idleMs ?? SESSION_IDLE_MS;
    this.maxPerCredential = options.maxPerCredential ?? MAX_SESSIONS_PER_CREDENTIAL;
  }

  async ensureIndexes(): Promise<void> {
    await this.sessions.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await this.sessions.ensureIndex({ fields: { credentialId: 1, lastUsedAt: 1 } });
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private remember(session: McpSession): McpSession {
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(session._id, { session, readAt: this.now() });
    return session;
  }

  /** A new session of the credential; over the bound, the credential's least recently used ones end first. */
  async create(credentialId: string, userId: string): Promise<McpSession> {
    const now = this.clock.now();
    const live = await this.sessions.find({ credentialId, expiresAt: { $gt: now } }, { sort: { lastUsedAt: 1 } });
    for (const old of live.slice(0, Math.max(0, live.length - this.maxPerCredential + 1))) await this.end(old._id);
    const session: McpSession = {
      _id: newSessionId(),
      credentialId,
      userId,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: new Date(now.getTime() + this.idleMs),
      subscriptions: [],
    };
    return this.remember(await this.sessions.insertOne(session));
  }

  /** The live session `id` of `credentialId`, or undefined (unknown, expired, ended, another credential's). */
  async find(id: string, credentialId: string, options: { fresh?: boolean } = {}): Promise<McpSession | undefined> {
    const now = this.now();
    const hit = this.cache.get(id);
    let session = !options.fresh && hit && now - hit.readAt < CACHE_MS ? hit.session : undefined;
    if (!session) {
      const read = await this.sessions.findById(id);
      if (!read) {
        this.cache.delete(id);
        return undefined;
      }
      session = this.remember(read);
    }
    if (session.credentialId !== credentialId || session.expiresAt.getTime() <= now) return undefined;
    return session;
  }

  /** Several sessions at once (the replica's open streams), as the store has them now. */
  async findMany(ids: readonly string[]): Promise<Map<string, McpSession>> {
    if (ids.length === 0) return new Map();
    const now = this.now();
    const found = await this.sessions.find({ _id: { $in: [...ids] } });
    return new Map(found.filter((s) => s.expiresAt.getTime() > now).map((s) => [s._id, this.remember(s)]));
  }

  /** Marks the session used now (written at most once a minute), moving its expiry along. */
  async touch(session: McpSession): Promise<void> {
    const now = this.clock.now();
    if (now.getTime() - session.lastUsedAt.getTime() < TOUCH_EVERY_MS) return;
    const expiresAt = new Date(now.getTime() + this.idleMs);
    session.lastUsedAt = now;
    session.expiresAt = expiresAt;
    await this.sessions.updateOne({ _id: session._id }, { $set: { lastUsedAt: now, expiresAt } });
  }

  async subscribe(session: McpSession, subscription: SessionSubscription): Promise<SessionSubscription[]> {
    const others = session.subscriptions.filter((s) => s.uri !== subscription.uri);
    return this.setSubscriptions(session, [...others, subscription].slice(-MAX_SUBSCRIPTIONS_PER_SESSION));
  }

  async unsubscribe(session: McpSession, uri: string): Promise<SessionSubscription[]> {
    return this.setSubscriptions(
      session,
      session.subscriptions.filter((s) => s.uri !== uri),
    );
  }

  private async setSubscriptions(session: McpSession, subscriptions: SessionSubscription[]): Promise<SessionSubscription[]> {
    // Read again first: the cached copy may be a little old, and another replica may have changed the list.
    const current = (await this.sessions.findById(session._id)) ?? session;
    const merged = mergeSubscriptions(session.subscriptions, current.subscriptions, subscriptions);
    await this.sessions.updateOne({ _id: session._id }, { $set: { subscriptions: merged } });
    this.remember({ ...current, subscriptions: merged });
    return merged;
  }

  /** Ends a session (DELETE /mcp, the per-credential bound, a revoked credential). */
  async end(id: string): Promise<void> {
    this.cache.delete(id);
    await this.sessions.deleteOne({ _id: id });
  }
}

/**
 * The list after one change: what the change added or removed (from `before` to `wanted`) applied to the
 * store's `current` list, so a change made meanwhile elsewhere is kept.
 */
const mergeSubscriptions = (before: SessionSubscription[], current: SessionSubscription[], wanted: SessionSubscription[]): SessionSubscription[] => {
  const removed = new Set(before.filter((b) => !wanted.some((w) => w.uri === b.uri)).map((b) => b.uri));
  const added = wanted.filter((w) => !before.some((b) => b.uri === w.uri && b.viewId === w.viewId && b.projectId === w.projectId));
  const kept = current.filter((c) => !removed.has(c.uri) && !added.some((a) => a.uri === c.uri));
  return [...kept, ...added].slice(-MAX_SUBSCRIPTIONS_PER_SESSION);
};
