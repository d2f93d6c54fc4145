import type { CollectedPost } from "../collectors/collector";
import { ProviderRateLimited } from "../collectors/provider-errors";
import type { ProviderHttp } from "../collectors/provider-http";

// Jetstream names a post's author by DID only. A mention shows a handle and a name, and its link reads
// better with the handle, so the posts that matched some project (never the whole firehose) are given
// their authors' profiles from app.bsky.actor.getProfiles on the public AppView (no account needed), 25
// DIDs a call, remembered for a while. A failed lookup leaves the DID: it is a permanent identifier and
// bsky.app opens a profile by it. The lookup must never hold the stream back: a DID the AppView does not
// name is not asked again for a while, and after a failed call (down, slow, rate limited) no call is made
// until a pause ends, so while the AppView is unwell posts go on, named by their DIDs.

export const PROFILES_PER_CALL = 25;
const REMEMBERED = 10_000;
const REMEMBER_MS = 6 * 3600 * 1000;
/** A DID the AppView did not name (deleted, suspended, handle no longer resolving) is asked again after this. */
const MISS_REMEMBER_MS = 30 * 60 * 1000;
/** No lookups for this long after a failed call (or until a 429's reset, if later). */
export const PROFILES_PAUSE_MS = 60_000;

export interface BlueskyProfile {
  handle: string;
  displayName?: string;
}

export class BlueskyProfiles {
  /** A profile, or null for a DID the AppView did not name; oldest first. */
  private readonly known = new Map<string, { profile: BlueskyProfile | null; at: number }>();
  private pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly http: ProviderHttp,
    private readonly publicApiUrl: string,
    private readonly now: () => number,
    private readonly warn: (err: unknown) => void = () => undefined,
  ) {}

  /** The posts with their authors' handles and names (and handle links) where a profile was found. */
  async withAuthors(posts: readonly CollectedPost[], signal?: AbortSignal): Promise<CollectedPost[]> {
    const missing = [...new Set(posts.map((p) => p.author.id))].filter((did) => !this.fresh(did));
    for (let i = 0; i < missing.length && this.now() >= this.pausedUntil; i += PROFILES_PER_CALL) {
      try {
        await this.fetch(missing.slice(i, i + PROFILES_PER_CALL), signal);
      } catch (err) {
        this.pausedUntil = Math.max(this.now() + PROFILES_PAUSE_MS, err instanceof ProviderRateLimited ? err.retryAt.getTime() : 0);
        this.warn(err);
      }
    }
    return posts.map((post) => {
      const profile = this.known.get(post.author.id)?.profile;
      if (!profile) return post;
      const rkey = post.sourceId.slice(post.sourceId.lastIndexOf("/") + 1);
      return {
        ...post,
        url: `https://bsky.app/profile/${profile.handle}/post/${rkey}`,
        author: { ...post.author, handle: profile.handle, name: profile.displayName || profile.handle, url: `https://bsky.app/profile/${profile.handle}` },
      };
    });
  }

  private fresh(did: string): boolean {
    const entry = this.known.get(did);
    return entry !== undefined && this.now() - entry.at < (entry.profile ? REMEMBER_MS : MISS_REMEMBER_MS);
  }

  private async fetch(dids: string[], signal?: AbortSignal): Promise<void> {
    const url = new URL(`${this.publicApiUrl.replace(/\/+$/, "")}/xrpc/app.bsky.actor.getProfiles`);
    for (const did of dids) url.searchParams.append("actors", did);
    const res = await this.http.request<{ profiles?: unknown }>({ source: "bluesky", url: url.toString(), signal });
    const profiles = Array.isArray(res.json.profiles) ? (res.json.profiles as unknown[]) : [];
    const named = new Set<string>();
    for (const p of profiles) {
      const { did, handle, displayName } = (p ?? {}) as { did?: unknown; handle?: unknown; displayName?: unknown };
      // "handle.invalid" is what the AppView says of a handle that no longer resolves: keep the DID then.
      if (typeof did !== "string" || typeof handle !== "string" || !handle || handle === "handle.invalid") continue;
      named.add(did);
      this.remember(did, { handle, ...(typeof displayName === "string" && displayName.trim() ? { displayName: displayName.trim() } : {}) });
    }
    for (const did of dids) if (!named.has(did)) this.remember(did, null);
  }

  private remember(did: string, profile: BlueskyProfile | null): void {
    // Oldest first out: a Map iterates in insertion order, and a refreshed entry is re-inserted.
    this.known.delete(did);
    if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value!);
    this.known.set(did, { profile, at: this.now() });
  }
}
