import fc from "fast-check";
import { ReplayBuffer } from "./replay-buffer";

// The replay buffer behind Last-Event-ID: what comes after an id, its two bounds, and ids it never issued.

describe("replay buffer", () => {
  it("replays what came after an id, in order, and nothing after the newest", () => {
    const b = new ReplayBuffer("k", () => 0);
    const ids = ["a", "b", "c"].map((d) => b.push(d).id);
    expect(b.after(ids[0]!)).toEqual({ events: [expect.objectContaining({ data: "b" }), expect.objectContaining({ data: "c" })], complete: true });
    expect(b.after(ids[2]!)).toEqual({ events: [], complete: true });
  });

  it("keeps at most the last N events and none older than the age bound, saying when some were lost", () => {
    let now = 0;
    const b = new ReplayBuffer("k", () => now, 3, 1000);
    const first = b.push("0").id;
    for (let i = 1; i < 5; i++) b.push(String(i));
    expect(b.size).toBe(3);
    const replay = b.after(first);
    expect(replay.events.map((e) => e.data)).toEqual(["2", "3", "4"]);
    expect(replay.complete).toBe(false);
    now = 1001;
    const late = b.push("5");
    expect(b.size).toBe(1);
    expect(b.after(late.id)).toEqual({ events: [], complete: true });
  });

  it("treats an id it never issued (another replica's, a restart's, garbage) as a gap", () => {
    const b = new ReplayBuffer("k", () => 0);
    b.push("x");
    for (const id of ["other-1", "k-99", "k-abc", "", "k"]) expect(b.after(id)).toEqual({ events: [expect.objectContaining({ data: "x" })], complete: false });
  });

  it("replays exactly the events after any id it issued while they are within the bounds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 10 }), fc.nat(), (pushed, max, pick) => {
        const b = new ReplayBuffer("k", () => 0, max, 60_000);
        const ids = Array.from({ length: pushed }, (_, i) => b.push(String(i)).id);
        const at = pick % pushed;
        const replay = b.after(ids[at]!);
        const expected = Array.from({ length: pushed }, (_, i) => String(i)).slice(Math.max(at + 1, pushed - max));
        expect(replay.events.map((e) => e.data)).toEqual(expected);
        expect(replay.complete).toBe(at + 1 >= pushed - max);
      }),
      { seed: 31, numRuns: 200 },
    );
  });
});
