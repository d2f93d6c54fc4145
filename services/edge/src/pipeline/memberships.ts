import { ROLE_WORDS } from "@earshot/platform";
import type { ProjectEvent } from "@earshot/contracts/events";
import { commonV1 } from "@earshot/proto";

// The caller's memberships (project -> role and the project's workspace) for the Caller the edge sends with every call. Kept per user,
// loaded by one call on a miss, and kept current by the project service's events on every replica
// (member added, role changed, removed; project created, archived), so a removed member or an archived
// project stops appearing in callers as soon as the event arrives. Entries also expire after `maxAgeMs`,
// which bounds staleness when events are late or there is no bus at all.

export interface MembershipCacheOptions {
  /** Reads a user's memberships from the service that owns them. */
  load(userId: string): Promise<commonV1.Membership[]>;
  maxAgeMs: number;
  now?: () => number;
  /** Entries kept before the cache starts over (memory bound). */
  maxEntries?: number;
}

interface Entry {
  roles: Map<string, commonV1.Membership>;
  loadedAt: number;
}

interface Loading {
  promise: Promise<commonV1.Membership[]>;
  /** Set when an event about the user arrived after the load began: its answer may predate the event. */
  stale: boolean;
}

const listOf = (roles: Map<string, commonV1.Membership>): commonV1.Membership[] => [...roles.values()].map((m) => ({ ...m }));

export class MembershipCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Loading>();
  private readonly listeners = new Set<(event: ProjectEvent) => void>();
  private readonly now: () => number;
  private loadCount = 0;

  constructor(private readonly options: MembershipCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Loads so far (misses and expiries): each one call to the project service. */
  get loads(): number {
    return this.loadCount;
  }

  /** The user's memberships: cached when fresh, else loaded once however many requests ask at the same time. */
  async forUser(userId: string): Promise<commonV1.Membership[]> {
    const hit = this.entries.get(userId);
    if (hit && this.now() - hit.loadedAt < this.options.maxAgeMs) return listOf(hit.roles);
    const pending = this.loading.get(userId);
    if (pending && !pending.stale) return pending.promise;
    return this.load(userId);
  }

  /** What is cached for a user, without loading (undefined when nothing is). */
  peek(userId: string): commonV1.Membership[] | undefined {
    const entry = this.entries.get(userId);
    return entry ? listOf(entry.roles) : undefined;
  }

  /** Calls `listener` after each project event the cache applied; returns the unsubscribe. */
  onApplied(listener: (event: ProjectEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Records a membership this process has just seen granted (a project its caller created), so the
   * caller's next request here carries it without waiting for the event, which sets the same when it comes.
   */
  grant(userId: string, membership: commonV1.Membership): void {
    this.change(userId, () => true, (roles) => roles.set(membership.projectId, { ...membership }));
  }

  /** Applies one project event (decoded with its message); the types it does not act on change nothing. */
  apply(event: ProjectEvent): void {
    // A consumer group new to the bus starts at the earliest retained event, so old events arrive after
    // entries were loaded from a newer state; an entry loaded after the event already reflects it.
    const time = Date.parse(event.time);
    const current = (entry: Entry) => Number.isNaN(time) || time >= entry.loadedAt;
    const { projectId, workspaceId } = event.data;
    if (projectId) {
      switch (event.type) {
        case "member.added":
        case "member.role_changed": {
          const { memberType, userId } = event.data;
          const role = ROLE_WORDS.value(event.data.role);
          if (memberType !== "member" || !userId || role === undefined) break;
          // Events written before they named the workspace cannot fill an entry: the next request reloads it.
          if (workspaceId) this.change(userId, current, (roles) => roles.set(projectId, { projectId, role, workspaceId }));
          else this.forget(userId);
          break;
        }
        case "member.removed": {
          const { memberType, userId } = event.data;
          if (memberType === "member" && userId) this.change(userId, current, (roles) => roles.delete(projectId));
          break;
        }
        case "project.created": {
          const { ownerId } = event.data;
          if (ownerId && workspaceId) this.change(ownerId, current, (roles) => roles.set(projectId, { projectId, role: commonV1.Role.ROLE_OWNER, workspaceId }));
          break;
        }
        case "project.archived":
          // An archived project grants nothing to anyone; who was in it is not in the event.
          for (const entry of this.entries.values()) if (current(entry)) entry.roles.delete(projectId);
          for (const pending of this.loading.values()) pending.stale = true;
          break;
        default:
          break;
      }
    }
    for (const listener of this.listeners) listener(event);
  }

  private forget(userId: string): void {
    this.entries.delete(userId);
    const pending = this.loading.get(userId);
    if (pending) pending.stale = true;
  }

  private change(userId: string, current: (entry: Entry) => boolean, fn: (roles: Map<string, commonV1.Membership>) => void): void {
    const entry = this.entries.get(userId);
    if (entry && current(entry)) fn(entry.roles);
    const pending = this.loading.get(userId);
    if (pending) pending.stale = true;
  }

  private load(userId: string): Promise<commonV1.Membership[]> {
    this.loadCount += 1;
    const loadedAt = this.now();
    const loading: Loading = { stale: false, promise: Promise.resolve([]) };
    loading.promise = this.options
      .load(userId)
      .then((memberships) => {
        // An answer read before an event about the user is not kept: the next request loads again.
        if (!loading.stale) {
          if (this.entries.size >= (this.options.maxEntries ?? 50_000)) this.entries.clear();
          this.entries.set(userId, { roles: new Map(memberships.map((m) => [m.projectId, { ...m }])), loadedAt });
        }
        return memberships;
      })
      .finally(() => {
        if (this.loading.get(userId) === loading) this.loading.delete(userId);
      });
    this.loading.set(userId, loading);
    return loading.promise;
  }
}
