import fc from "fast-check";
import { safeNext } from "./session-http";

// `next` after sign-in is a path under /app or /app itself: never another origin, whatever is typed.

describe("safeNext", () => {
  test("keeps paths under /app", () => {
    for (const path of ["/app", "/app/projects/prj_1?status=open&view=view_2", "/app/projects/prj_1/mentions/men_1#men_1", "/app?x=1"]) expect(safeNext(path)).toBe(path);
  });

  test("turns everything else into /app", () => {
    for (const path of ["https://evil.example/app", "//evil.example/app", "/\\evil.example", "/app\\..\\x", "/appx", "/api/v1/projects", "app", " /app", "/app\n/x", "/app\t", undefined, 42, ["/app/x"]]) {
      expect(safeNext(path)).toBe("/app");
    }
  });

  test("any input gives /app or a same-origin path under /app (seeded)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string().map((s) => `/app${s}`), fc.string().map((s) => `//${s}`)), (input) => {
        const out = safeNext(input);
        expect(out === "/app" || out === input).toBe(true);
        expect(/^\/app(?:[/?#]|$)/.test(out)).toBe(true);
        // Resolved against any origin, it stays on that origin.
        expect(new URL(out, "https://earshot.example").origin).toBe("https://earshot.example");
      }),
      { seed: 33, numRuns: 2000 },
    );
  });
});
