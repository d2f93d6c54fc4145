import { isDomainError } from "@earshot/platform";
import { WAITING_PER_CREDENTIAL, WaitSlots } from "./wait-slots";

// The per-credential bound on long polls: a slot per waiting call, refused past the bound with the input
// named and Retry-After, freed by the answer or by the client going away, none for a call that does not wait.

describe("wait slots", () => {
  it("holds at most the bound per credential and refuses one more naming the input", () => {
    const slots = new WaitSlots();
    const releases = Array.from({ length: WAITING_PER_CREDENTIAL }, () => slots.take("key_a", 30, "wait"));
    expect(slots.waiting("key_a")).toBe(WAITING_PER_CREDENTIAL);
    let refusal: unknown;
    try {
      slots.take("key_a", 10, "wait");
    } catch (err) {
      refusal = err;
    }
    expect(isDomainError(refusal) && { code: refusal.code, errors: refusal.errors.map((e) => e.path) }).toEqual({ code: "rate_limited", errors: ["wait"] });
    expect((refusal as { details: { retryAfter: number } }).details.retryAfter).toBeGreaterThanOrEqual(29);
    // Another credential, and a call that does not wait, are not held back.
    slots.take("key_b", 30, "wait")();
    slots.take("key_a", 0, "wait")();
    releases[0]!();
    releases[0]!();
    expect(slots.waiting("key_a")).toBe(WAITING_PER_CREDENTIAL - 1);
    releases.slice(1).forEach((release) => release());
    expect(slots.waiting()).toBe(0);
  });

  it("frees a slot when its client goes away", () => {
    const slots = new WaitSlots(1);
    const gone = new AbortController();
    const release = slots.take("key_a", 30, "wait", gone.signal);
    gone.abort();
    expect(slots.waiting("key_a")).toBe(0);
    slots.take("key_a", 30, "wait")();
    release();
    expect(slots.waiting()).toBe(0);
  });
});
