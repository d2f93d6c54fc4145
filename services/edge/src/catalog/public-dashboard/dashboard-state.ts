import { isDomainError, SOURCE_WORDS } from "@earshot/platform";
import type { ProjectEvent } from "@earshot/contracts/events";
import type { projectV1 } from "@earshot/proto";

// The edge's copy of public dashboards: share id -> the project's public face, or "not served". Loaded by
// one call to the project service on a miss, and kept current by `project.dashboard_changed` on every
// replica, so a dashboard disabled, archived or edited stops being served (or shows its new face) as soon
// as the event arrives. Entries also expire after `maxAgeMs`, which bounds staleness when events are late
// or there is no bus.

export interface PublicFace {
  shareId: string;
  name: string;
  color: string;
  icon: string;
  description: string;
  websiteUrl: string;
  paused: boolean;
  enabledSources: string[];
  timezone: string;
}

export interface DashboardStateOptions {
  load(shareId: string): Promise<projectV1.PublicProject | undefined>;
  maxAgeMs: number;
  now?: () => number;
  /** Entries kept before the cache starts over (memory bound: share ids come from anyone). */
  maxEntries?: number;
}

interface Entry {
  face: PublicFace | undefined;
  loadedAt: number;
}

const faceOf = (p: projectV1.PublicProject): PublicFace => ({
  shareId: p.shareId,
  name: p.name,
  color: p.color,
  icon: p.icon,
  description: p.description,
  websiteUrl: p.websiteUrl,
  paused: p.paused,
  enabledSources: p.enabledSources.map((s) => SOURCE_WORDS.word(s)).filter((w): w is NonNullable<typeof w> => w !== undefined),
  timezone: p.timezone,
});

/** Loads a share id's public face; undefined when the project service says it is not served (or unknown). */
export const loadPublicFace = (project: { getPublicDashboard(req: projectV1.GetPublicDashboardRequest): Promise<projectV1.GetPublicDashboardResponse> }) =>
  async (shareId: string): Promise<projectV1.PublicProject | undefined> => {
    try {
      return (await project.getPublicDashboard({ shareId })).project;
    } catch (err) {
      if (isDomainError(err) && err.code === "not_found") return undefined;
      throw err;
    }
  };

export class DashboardState {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<PublicFace | undefined>>();
  private readonly tickets = new Map<string, object>();
  private readonly now: () => number;

  constructor(private readonly options: DashboardStateOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The public face of a served dashboard, or undefined (unknown, disabled, archived, deactivated alike). */
  async get(shareId: string): Promise<PublicFace | undefined> {
    const hit = this.entries.get(shareId);
    if (hit && this.now() - hit.loadedAt < this.options.maxAgeMs) return hit.face;
    const pending = this.loading.get(shareId);
    if (pending) return pending;
    const ticket = {};
    const loadedAt = this.now();
    const promise = this.options
      .load(shareId)
      .then((found) => {
        const face = found ? faceOf(found) : undefined;
        if (this.entries.size >= (this.options.maxEntries ?? 10_000)) this.entries.clear();
        // An event that arrived while loading took the load away: its answer may predate the event.
        if (this.tickets.get(shareId) === ticket) this.entries.set(shareId, { face, loadedAt });
        return face;
      })
      .finally(() => {
        if (this.tickets.get(shareId) === ticket) {
          this.tickets.delete(shareId);
          this.loading.delete(shareId);
        }
      });
    this.tickets.set(shareId, ticket);
    this.loading.set(shareId, promise);
    return promise;
  }

  /** Applies one project event: a dashboard that changed is read again on its next request. */
  apply(event: ProjectEvent): void {
    if (event.type !== "project.dashboard_changed") return;
    this.entries.delete(event.data.shareId);
    this.loading.delete(event.data.shareId);
    this.tickets.delete(event.data.shareId);
  }
}
