import { DomainError } from "@earshot/platform";

// Long polls held per credential in this gateway process. A waiting call costs a connection here and a
// waiting read in a service for up to its wait; without a bound one credential could hold any number of
// them. Past the bound a further waiting call is refused at once (429, Retry-After when the first of its
// slots frees), not queued: the client learns to read without waiting or to wait less often. A slot is
// freed when the call answers or its client goes away, whichever comes first.

/** Waiting calls one credential may hold at once in one gateway process. */
export const WAITING_PER_CREDENTIAL = 4;

export class WaitSlots {
  private readonly held = new Map<string, Set<{ ends: number }>>();

  constructor(private readonly perCredential = WAITING_PER_CREDENTIAL) {}

  /**
   * A slot for a call of `credentialId` waiting up to `seconds` (none needed for 0): returns its release,
   * also run when `signal` aborts. `input` names the wait in the refusal.
   */
  take(credentialId: string, seconds: number, input: string, signal?: AbortSignal): () => void {
    if (!(seconds > 0)) return () => undefined;
    const slots = this.held.get(credentialId) ?? new Set();
    if (slots.size >= this.perCredential) {
      const first = Math.min(...[...slots].map((s) => s.ends));
      throw new DomainError(
        "rate_limited",
        `This credential already has ${this.perCredential} calls waiting for changes; call with ${input}=0, or wait for one of them to answer.`,
        { errors: [{ path: input, message: `at most ${this.perCredential} waiting calls per credential at once` }], details: { retryAfter: Math.max(1, Math.ceil((first - Date.now()) / 1000)) } },
      );
    }
    const slot = { ends: Date.now() + seconds * 1000 };
    slots.add(slot);
    this.held.set(credentialId, slots);
    const release = () => {
      signal?.removeEventListener("abort", release);
      slots.delete(slot);
      if (slots.size === 0 && this.held.get(credentialId) === slots) this.held.delete(credentialId);
    };
    signal?.addEventListener("abort", release);
    return release;
  }

  /** Slots held now by a credential, or by all of them (tests, logs). */
  waiting(credentialId?: string): number {
    if (credentialId !== undefined) return this.held.get(credentialId)?.size ?? 0;
    let n = 0;
    for (const slots of this.held.values()) n += slots.size;
    return n;
  }
}
