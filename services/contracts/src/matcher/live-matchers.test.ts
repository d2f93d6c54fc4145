import { type LiveKeyword, LiveMatchers } from "./live-matchers";
import type { MatchablePost } from "./types";

const post = (text: string): MatchablePost => ({ source: "x", text, author: { id: "1", handle: "someone" } });

const event = (keywordId: string, value: string, more: Partial<LiveKeyword> = {}): LiveKeyword => ({
  keywordId,
  projectId: "prj_1",
  groupId: "kwg_1",
  value,
  sources: ["x"],
  active: true,
  ...more,
});

describe("live matchers", () => {
  it("compiles a project once per change, however many posts it matches", () => {
    const live = new LiveMatchers();
    live.load("prj_1", []);
    live.apply("keyword.created", event("kw_1", "acme"));
    for (let i = 0; i < 50; i++) expect(live.matcherFor("prj_1")!.match(post("I like acme")).map((h) => h.keywordId)).toEqual(["kw_1"]);
    expect(live.compiles).toBe(1);
    live.apply("keyword.created", event("kw_2", "globex", { excludedTerms: ["spam"] }));
    expect(live.matcherFor("prj_1")!.match(post("acme and globex")).map((h) => h.keywordId).sort()).toEqual(["kw_1", "kw_2"]);
    expect(live.matcherFor("prj_1")!.match(post("globex spam")).map((h) => h.keywordId)).toEqual([]);
    expect(live.compiles).toBe(2);
  });

  it("stops matching a deactivated keyword and follows an updated value", () => {
    const live = new LiveMatchers();
    live.load("prj_1", []);
    live.apply("keyword.created", event("kw_1", "acme"));
    live.apply("keyword.updated", event("kw_1", "acme corp"));
    expect(live.matcherFor("prj_1")!.match(post("acme is here"))).toEqual([]);
    expect(live.matcherFor("prj_1")!.match(post("acme corp is here"))).toHaveLength(1);
    live.apply("keyword.deactivated", event("kw_1", "acme corp", { active: false }));
    expect(live.matcherFor("prj_1")!.match(post("acme corp is here"))).toEqual([]);
    live.apply("keyword.updated", event("kw_1", "acme corp", { active: true }));
    expect(live.matcherFor("prj_1")!.match(post("acme corp is here"))).toHaveLength(1);
  });

  it("skips events of projects it has not loaded, and answers undefined for them", () => {
    const live = new LiveMatchers();
    live.apply("keyword.created", event("kw_1", "acme"));
    expect(live.has("prj_1")).toBe(false);
    expect(live.matcherFor("prj_1")).toBeUndefined();
    live.load("prj_1", []);
    live.drop("prj_1");
    expect(live.matcherFor("prj_1")).toBeUndefined();
  });
});

describe("live matchers loading", () => {
  it("applies an event that arrives while the project loads after the loaded keywords", async () => {
    const live = new LiveMatchers();
    let release!: (k: ReturnType<typeof Array.prototype.slice>) => void;
    const fetched = new Promise<never[]>((resolve) => (release = resolve as typeof release));
    const loading = live.ensure("prj_1", () => fetched);
    const again = live.ensure("prj_1", async () => {
      throw new Error("loads once");
    });
    live.apply("keyword.created", event("kw_9", "initech", { updatedAt: "2026-11-23T10:00:00.000Z" }));
    release([]);
    await Promise.all([loading, again]);
    expect(live.matcherFor("prj_1")!.match(post("initech rocks")).map((h) => h.keywordId)).toEqual(["kw_9"]);
  });

  it("ignores a keyword state older than one it applied", () => {
    const live = new LiveMatchers();
    live.load("prj_1", []);
    live.apply("keyword.deactivated", event("kw_1", "acme", { active: false, updatedAt: "2026-11-23T10:00:02.000Z" }));
    live.apply("keyword.created", event("kw_1", "acme", { updatedAt: "2026-11-23T10:00:01.000Z" }));
    expect(live.matcherFor("prj_1")!.match(post("acme"))).toEqual([]);
  });
});
