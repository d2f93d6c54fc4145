// A bounded cache of fetched values: at most `maxEntries` (least recently used dropped first), each kept
// for `ttlMs` and deleted once expired, and one fetch per key at a time (concurrent callers share it; a
// failed fetch is not remembered). Keys come from strangers (client_id URLs), so nothing here may grow
// with what they send.

export interface FetchCacheOptions {
  maxEntries: number;
  ttlMs: number;
  now?: () => number;
}

export interface FetchCache<V> {
  get(key: string, fetch: () => Promise<V>): Promise<V>;
  readonly size: number;
}

export const createFetchCache = <V>(options: FetchCacheOptions): FetchCache<V> => {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: V; until: number }>();
  const inflight = new Map<string, Promise<V>>();
  return {
    get size() {
      return entries.size;
    },
    get: (key, fetch) => {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        if (hit.until > now()) {
          entries.set(key, hit);
          return Promise.resolve(hit.value);
        }
      }
      const pending = inflight.get(key);
      if (pending) return pending;
      const p = fetch()
        .then((value) => {
          entries.set(key, { value, until: now() + options.ttlMs });
          for (const oldest of entries.keys()) {
            if (entries.size <= options.maxEntries) break;
            entries.delete(oldest);
          }
          return value;
        })
        .finally(() => inflight.delete(key));
      inflight.set(key, p);
      return p;
    },
  };
};
