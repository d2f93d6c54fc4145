// Serializes async work per key inside one process: a verb whose commit may conflict with another of the
// same key (a workspace's guard, a project's change sequence or model) queues behind it here first, so
// only replicas racing each other ever meet a version conflict and retry.

/** Runs one call per key at a time, in arrival order. */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Holds several keys, taken in sorted order so two callers never wait on each other. */
  runAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const hold = (i: number): Promise<T> => (i === sorted.length ? fn() : this.run(sorted[i]!, () => hold(i + 1)));
    return hold(0);
  }
}
