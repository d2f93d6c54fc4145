import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { isDomainError, type Logger, newId } from "@earshot/platform";
import type { Operation } from "../../catalog/operation";
import type { Pipeline } from "../../pipeline/execute";
import type { RateLimitDecision } from "../../pipeline/rate-limit";
import { toolCallRequest } from "../tools";
import { ReplayBuffer, REPLAY_MAX_AGE_MS } from "./replay-buffer";
import type { McpSession, McpSessionStore, SessionSubscription } from "./session-store";

// The server-to-client side of MCP sessions on one replica: the GET streams this replica holds, each with
// its replay buffer, and the `notifications/resources/updated` they carry. Every replica hears every
// mention event (a consumer group of its own) and tells only the sessions whose stream it holds, or held
// within the replay window.
//
// The stream's Authorization is kept in this process's memory only, for as long as the stream (or its
// replay window) lasts, never in the store: before a session is told anything, that credential is
// verified again (the verifier's cache learns a revocation within a second) and its user must still be a
// member of the mention's project; every CHECK_EVERY_MS each stream's credential is checked again too, so
// a revoked key's or token's streams close even when nothing happens in its projects. Subscriptions come
// from the store, where any replica may have changed them, re-read when the replica's copy is older than
// SUBSCRIPTIONS_FRESH_MS.
//
// A saved view's subscription is told when the new mention is among the view's newest VIEW_WINDOW mentions,
// asked through list_mentions with the view, as the session's caller: the mention service stays the one
// judge of a view's filters, and a mention the view's first page does not show leaves its resource as it was.

const CHECK_EVERY_MS = 2000;
const SUBSCRIPTIONS_FRESH_MS = 1000;
const KEEP_ALIVE_MS = 15_000;
/** At most one notification per subscribed URI per session this often; the client reads the resource again anyway. */
const COALESCE_MS = 100;
const VIEW_WINDOW = 100;

/** The notifier's own reads are not the client's requests: they are not counted against its rate limit. */
const NOT_COUNTED: RateLimitDecision = { allowed: true, remaining: 0, resetSeconds: 0, headers: {} };

export interface StreamCredential {
  authorization: string;
  /** The resource the credential was presented to (`{origin}/mcp`): an OAuth token's audience. */
  audience: string;
  clientAddress: string | undefined;
}

interface LocalSession {
  id: string;
  credentialId: string;
  credential: StreamCredential;
  buffer: ReplayBuffer;
  stream?: ServerResponse;
  keepAlive?: NodeJS.Timeout;
  /** Since when no stream is open (held before the first one, or broken): the replay window counts from here. */
  idleSince?: number;
  /** Whether a stream was ever opened here: the first one also gets what was buffered before it. */
  opened: boolean;
  subscriptions: SessionSubscription[];
  subscriptionsAt: number;
  lastSent: Map<string, number>;
  pending: Map<string, NodeJS.Timeout>;
}

export interface MentionChange {
  projectId: string;
  mentionId: string;
}

export interface SessionStreamsOptions {
  sessions: McpSessionStore;
  pipeline: Pipeline;
  operations: readonly Operation[];
  logger: Logger;
  now?: () => number;
}

export type OpenOutcome = "opened" | "conflict";

const sseEvent = (id: string, data: string) => `event: message\nid: ${id}\ndata: ${data}\n\n`;

export const updatedNotification = (uri: string) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });

export class SessionStreams {
  private readonly local = new Map<string, LocalSession>();
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout;
  private readonly listMentions: Operation | undefined;
  private checking = false;

  constructor(private readonly options: SessionStreamsOptions) {
    this.now = options.now ?? Date.now;
    this.listMentions = options.operations.find((op) => op.name === "list_mentions");
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** Notifications this replica keeps for a session (for tests and the replay bound). */
  bufferedCount(sessionId: string): number {
    return this.local.get(sessionId)?.buffer.size ?? 0;
  }

  /** Streams open on this replica now. */
  get openStreams(): number {
    let n = 0;
    for (const s of this.local.values()) if (s.stream) n++;
    return n;
  }

  /**
   * Opens the session's stream on `res` (headers written here), first sending what came after
   * `lastEventId` when given. One stream per session: a second one while it is open is a conflict.
   */
  open(session: McpSession, credential: StreamCredential, res: ServerResponse, lastEventId: string | undefined): OpenOutcome {
    const held = this.local.get(session._id);
    if (held?.stream) return "conflict";
    const entry = held ?? this.hold(session, credential);
    entry.credential = credential;
    entry.subscriptions = session.subscriptions;
    entry.subscriptionsAt = this.now();
    delete entry.idleSince;
    res.writeHead(200, {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
      "mcp-session-id": session._id,
    });
    if (lastEventId !== undefined) {
      const replay = entry.buffer.after(lastEventId);
      if (!replay.complete) {
        this.options.logger.info({ sessionId: session._id, lastEventId, replayed: replay.events.length }, "MCP stream resumed past its replay window: older notifications are lost");
      }
      for (const e of replay.events) res.write(sseEvent(e.id, e.data));
    } else if (!entry.opened) {
      // Notifications raised between the subscription and the client's first GET are not lost.
      for (const e of entry.buffer.after(`${entry.buffer.key}-0`).events) res.write(sseEvent(e.id, e.data));
    }
    entry.opened = true;
    // Headers go out now: the client's fetch resolves on them, before any notification.
    res.flushHeaders();
    const opened = entry;
    opened.stream = res;
    opened.keepAlive = setInterval(() => res.write(": keepalive\n\n"), KEEP_ALIVE_MS);
    opened.keepAlive.unref();
    res.on("close", () => {
      if (opened.stream !== res) return;
      clearInterval(opened.keepAlive);
      delete opened.stream;
      opened.idleSince = this.now();
    });
    return "opened";
  }

  /**
   * Holds the session on this replica before its stream opens (a subscription made here), so that what
   * happens before the client's GET arrives is buffered for it. Does nothing when already held.
   */
  hold(session: McpSession, credential: StreamCredential): LocalSession {
    const held = this.local.get(session._id);
    if (held) return held;
    const entry: LocalSession = {
      opened: false,
      idleSince: this.now(),
      id: session._id,
      credentialId: session.credentialId,
      credential,
      buffer: new ReplayBuffer(randomBytes(6).toString("base64url"), this.now),
      subscriptions: session.subscriptions,
      subscriptionsAt: this.now(),
      lastSent: new Map(),
      pending: new Map(),
    };
    this.local.set(session._id, entry);
    return entry;
  }

  /** The session's subscriptions as just written here, so this replica's copy is current at once. */
  subscriptionsChanged(sessionId: string, subscriptions: SessionSubscription[]): void {
    const entry = this.local.get(sessionId);
    if (!entry) return;
    entry.subscriptions = subscriptions;
    entry.subscriptionsAt = this.now();
    // What was waiting to be sent for a URI no longer subscribed is dropped.
    for (const [uri, timer] of entry.pending) {
      if (!subscriptions.some((s) => s.uri === uri)) {
        clearTimeout(timer);
        entry.pending.delete(uri);
      }
    }
  }

  /** Closes the session's stream and forgets it here (the session ended, or its credential is no longer valid). */
  end(sessionId: string): void {
    const entry = this.local.get(sessionId);
    if (!entry) return;
    this.local.delete(sessionId);
    clearInterval(entry.keepAlive);
    for (const timer of entry.pending.values()) clearTimeout(timer);
    entry.stream?.end();
  }

  /** A mention was stored or changed: tells the sessions held here whose subscriptions it concerns. */
  async mentionChanged(change: MentionChange): Promise<void> {
    const interested = [...this.local.values()].filter((e) => e.subscriptions.some((s) => s.projectId === change.projectId) || this.now() - e.subscriptionsAt >= SUBSCRIPTIONS_FRESH_MS);
    if (interested.length === 0) return;
    await this.refreshSubscriptions(interested.filter((e) => this.now() - e.subscriptionsAt >= SUBSCRIPTIONS_FRESH_MS));
    await Promise.all(interested.map((entry) => this.tell(entry, change)));
  }

  private async tell(entry: LocalSession, change: MentionChange): Promise<void> {
    const subscriptions = entry.subscriptions.filter((s) => s.projectId === change.projectId && !entry.pending.has(s.uri));
    if (subscriptions.length === 0) return;
    try {
      const principal = await this.options.pipeline.authenticate(entry.credential.authorization);
      if (principal.credentialId !== entry.credentialId) return this.end(entry.id);
      const memberships = await this.options.pipeline.options.memberships.forUser(principal.userId);
      if (!memberships.some((m) => m.projectId === change.projectId)) return;
    } catch (err) {
      if (isDomainError(err) && err.code === "unauthorized") return this.end(entry.id);
      this.options.logger.warn({ err, sessionId: entry.id }, "MCP notification skipped: the credential could not be checked");
      return;
    }
    for (const s of subscriptions) {
      if (s.viewId === undefined || (await this.inView(entry, s, change.mentionId))) this.notify(entry, s.uri);
    }
  }

  private async inView(entry: LocalSession, s: SessionSubscription, mentionId: string): Promise<boolean> {
    if (!this.listMentions) return false;
    const request = toolCallRequest(this.listMentions, { projectId: s.projectId, viewId: s.viewId, limit: VIEW_WINDOW }, {
      authorization: entry.credential.authorization,
      requestId: newId("req"),
      audience: entry.credential.audience,
      clientAddress: entry.credential.clientAddress,
      rateLimit: NOT_COUNTED,
    });
    const response = await this.options.pipeline.execute(this.listMentions, request);
    if (response.status !== 200) return false;
    const { data } = response.body as { data: Array<{ id: string }> };
    return data.some((m) => m.id === mentionId);
  }

  /** Sends (or buffers) the notification for `uri`, at most once per COALESCE_MS. */
  private notify(entry: LocalSession, uri: string): void {
    if (entry.pending.has(uri)) return;
    const wait = (entry.lastSent.get(uri) ?? -Infinity) + COALESCE_MS - this.now();
    if (wait > 0) {
      entry.pending.set(
        uri,
        setTimeout(() => {
          entry.pending.delete(uri);
          this.send(entry, uri);
        }, wait),
      );
      return;
    }
    this.send(entry, uri);
  }

  private send(entry: LocalSession, uri: string): void {
    if (this.local.get(entry.id) !== entry) return;
    entry.lastSent.set(uri, this.now());
    const event = entry.buffer.push(updatedNotification(uri));
    entry.stream?.write(sseEvent(event.id, event.data));
  }

  private async refreshSubscriptions(entries: LocalSession[]): Promise<Map<string, McpSession>> {
    if (entries.length === 0) return new Map();
    const found = await this.options.sessions.findMany(entries.map((e) => e.id));
    for (const entry of entries) {
      const session = found.get(entry.id);
      // Ended (DELETE on any replica), expired, or bounded away: its stream closes.
      if (!session) this.end(entry.id);
      else this.subscriptionsChanged(entry.id, session.subscriptions);
    }
    return found;
  }

  /** Every CHECK_EVERY_MS: credentials still valid, sessions still there, open streams keep theirs alive, old buffers go. */
  private async check(): Promise<void> {
    if (this.checking || this.local.size === 0) return;
    this.checking = true;
    try {
      const entries = [...this.local.values()];
      for (const entry of entries) {
        if (!entry.stream && entry.idleSince !== undefined && this.now() - entry.idleSince > REPLAY_MAX_AGE_MS) {
          this.end(entry.id);
          continue;
        }
        // A held session without a stream is checked when there is something to tell it, not before.
        if (!entry.stream) continue;
        try {
          const principal = await this.options.pipeline.authenticate(entry.credential.authorization);
          if (principal.credentialId !== entry.credentialId) this.end(entry.id);
        } catch (err) {
          if (isDomainError(err) && err.code === "unauthorized") this.end(entry.id);
        }
      }
      const left = entries.filter((e) => this.local.get(e.id) === e);
      const found = await this.refreshSubscriptions(left);
      // An open stream is use: its session does not expire while the client listens.
      for (const entry of left) {
        const session = found.get(entry.id);
        if (entry.stream && session) await this.options.sessions.touch(session);
      }
    } catch (err) {
      this.options.logger.warn({ err }, "MCP stream check failed; retried shortly");
    } finally {
      this.checking = false;
    }
  }

  /** Closes every stream (the gateway is stopping): clients reconnect, to another replica if need be. */
  close(): void {
    clearInterval(this.timer);
    for (const id of [...this.local.keys()]) this.end(id);
  }
}
