import { createHash, randomBytes } from "node:crypto";
import type { Clock, Collection, Doc, DocumentStore } from "@earshot/platform";

// Signed-in people's sessions of the web app, in the edge's store so any gateway replica serves them.
// The cookie carries a random id; the store keeps only its SHA-256, so a copy of the store (a backup, a
// log of queries) signs nobody in. A session ends when unused for the idle period or, whatever its use,
// at its absolute end; each sign-in makes a new one (an id planted before sign-in is never promoted).

export const WEB_SESSION_COLLECTION = "web_sessions";

export interface WebSession extends Doc {
  userId: string;
  email: string;
  name: string;
  /** The per-session token every form posts back (CSRF). */
  csrf: string;
  createdAt: Date;
  lastUsedAt: Date;
  /** The absolute end, whatever the use. */
  endsAt: Date;
  /** min(lastUsedAt + idle, endsAt): the store's TTL index removes the session then. */
  expiresAt: Date;
}

export interface WebSessionTimes {
  idleMs: number;
  absoluteMs: number;
}

/** lastUsedAt is written at most this often per session: a page view is not a store write each time. */
const TOUCH_EVERY_MS = 60_000;

const hashOf = (id: string) => createHash("sha256").update(id).digest("base64url");
const ID_SHAPE = /^[\w-]{43}$/;

export class WebSessionStore {
  private readonly sessions: Collection<WebSession>;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
    readonly times: WebSessionTimes,
  ) {
    this.sessions = store.collection<WebSession>(WEB_SESSION_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.sessions.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  }

  /** A new session for the user; the id is returned once, for the cookie. */
  async create(user: { id: string; email: string; name: string }): Promise<{ id: string; session: WebSession }> {
    const id = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    const endsAt = new Date(now.getTime() + this.times.absoluteMs);
    const session: WebSession = {
      _id: hashOf(id),
      userId: user.id,
      email: user.email,
      name: user.name,
      csrf: randomBytes(24).toString("base64url"),
      createdAt: now,
      lastUsedAt: now,
      endsAt,
      expiresAt: this.expiryOf(now.getTime(), endsAt),
    };
    await this.sessions.insertOne(session);
    return { id, session };
  }

  /** The live session of a cookie's id, its idle period renewed; null for unknown, forged or expired ids. */
  async find(id: string | undefined): Promise<WebSession | null> {
    if (!id || !ID_SHAPE.test(id)) return null;
    const session = await this.sessions.findById(hashOf(id));
    const now = this.clock.now().getTime();
    // The TTL sweep runs now and then; an expired session must be refused the moment it expires.
    if (!session || session.expiresAt.getTime() <= now) return null;
    if (now - session.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
      const expiresAt = this.expiryOf(now, session.endsAt);
      await this.sessions.updateOne({ _id: session._id }, { $set: { lastUsedAt: new Date(now), expiresAt } });
      return { ...session, lastUsedAt: new Date(now), expiresAt };
    }
    return session;
  }

  async end(id: string | undefined): Promise<void> {
    if (id && ID_SHAPE.test(id)) await this.sessions.deleteOne({ _id: hashOf(id) });
  }

  private expiryOf(now: number, endsAt: Date): Date {
    return new Date(Math.min(now + this.times.idleMs, endsAt.getTime()));
  }
}
