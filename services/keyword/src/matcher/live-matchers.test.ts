import { type KeywordEventData, LiveMatchers } from "./live-matchers";
import type { MatchablePost } from "./types";

const post = (text: string): MatchablePost => ({ source: "x", text, author: { id: "1", handle: "someone" } });

const event = (keywordId: string, value: string, more: Partial<KeywordEventData> = {}): KeywordEventData => ({
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
