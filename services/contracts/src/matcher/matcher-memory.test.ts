import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { compileMatcher, retainedBytesOf } from "./compile-matcher";
import { keyword, post } from "./matcher-test-support";

// A service keeps one matcher per project for as long as the project lives, so what a small project's
// matcher holds is paid once per project.

// Garbage from earlier work must not blur a before/after reading, so the test collects it first.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const KB = 1024;
const MB = 1024 * KB;

/** Two keywords, one folded and one case-sensitive, so the matcher has both tries. */
const smallProject = (i: number) => [
  keyword(`brand${i}`, { id: `k${i}a`, aliases: [`#brand${i}`] }),
  keyword(`Product ${i}`, { id: `k${i}b`, caseSensitive: true }),
];

describe("compileMatcher memory", () => {
  it("keeps under 10 KB of typed arrays per matcher of two keywords, for 1,000 matchers", () => {
    const matchers = Array.from({ length: 1000 }, (_, i) => compileMatcher(smallProject(i)));
    const bytes = matchers.reduce((sum, m) => sum + retainedBytesOf(m), 0);
    expect(bytes).toBeLessThan(10 * MB);
    const text = "brand999 and Product 999, not product 999";
    expect(matchers[999]?.match(post(text)).map((h) => h.keywordId)).toEqual(["k999a", "k999b"]);
  });

  it("grows the process's array buffers by less than 20 MB for 1,000 matchers of two keywords", () => {
    // The per-code-point tables are shared by every matcher and learned on first use.
    compileMatcher(smallProject(0)).match(post("brand0 Product 0"));
    collectGarbage();
    const before = process.memoryUsage().arrayBuffers;
    const matchers = Array.from({ length: 1000 }, (_, i) => compileMatcher(smallProject(i)));
    collectGarbage();
    const grown = process.memoryUsage().arrayBuffers - before;
    expect(grown).toBeLessThan(20 * MB);
    expect(matchers.every((m) => m.size === 2)).toBe(true);
  });

  it("holds no trie for a case rule that no keyword uses", () => {
    expect(retainedBytesOf(compileMatcher([]))).toBeLessThan(KB);
    const folded = retainedBytesOf(compileMatcher([keyword("acme")]));
    const both = retainedBytesOf(compileMatcher([keyword("acme"), keyword("Acme", { id: "k2", caseSensitive: true })]));
    expect(folded).toBeLessThan(4 * KB);
    expect(both - folded).toBeGreaterThan(2 * KB);
  });
});
