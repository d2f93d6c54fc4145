// Wakes the change reads waiting in this process (a long poll) when a change of their project commits:
// this process's own commits say so right after committing, other replicas' through their events on the
// bus (the `watch` consumer). A reader listens before its last read, so a commit landing between that read
// and the wait still wakes it.

export interface ChangeListener {
  /** Resolves at the project's next change since `listen` (at once if one came already), after `ms`, or on abort. */
  next(ms: number, signal?: AbortSignal): Promise<void>;
  /** Stops listening (always call it, once done). */
  close(): void;
}

export class ChangeSignals {
  private readonly listeners = new Map<string, Set<() => void>>();

  listen(projectId: string): ChangeListener {
    let fired = false;
    let wake: (() => void) | undefined;
    const onChange = () => {
      fired = true;
      wake?.();
    };
    let set = this.listeners.get(projectId);
    if (!set) this.listeners.set(projectId, (set = new Set()));
    set.add(onChange);
    const close = () => {
      set.delete(onChange);
      if (set.size === 0 && this.listeners.get(projectId) === set) this.listeners.delete(projectId);
    };
    return {
      close,
      next: (ms, signal) => {
        if (fired || signal?.aborted || ms <= 0) {
          fired = false;
          return Promise.resolve();
        }
        return new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            wake = undefined;
            fired = false;
            resolve();
          };
          const timer = setTimeout(done, ms);
          signal?.addEventListener("abort", done);
          wake = done;
        });
      },
    };
  }

  notify(projectId: string): void {
    for (const onChange of this.listeners.get(projectId) ?? []) onChange();
  }

  /** Readers waiting now, for tests and logs. */
  get waiting(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
