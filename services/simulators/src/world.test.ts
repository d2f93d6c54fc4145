import { LOG_KEPT, SimWorld } from "./world";

describe("the simulators' request count", () => {
  const entry = { method: "GET", path: "/organizationalEntityNotifications", query: {}, headers: {}, body: "" };

  it("counts every request of a window, also once the log has dropped older ones", () => {
    // The polling benchmark's 1,000-project run: setup and the first polls filled LinkedIn's log, and
    // requests per cycle read as the log's length after minus before came out 0.
    const world = new SimWorld({ now: () => 0 });
    for (let i = 0; i < LOG_KEPT + 250; i++) world.log("linkedin", entry);
    const countBefore = world.requestCount("linkedin");
    const logBefore = world.requests("linkedin").length;
    for (let i = 0; i < 1_200; i++) world.log("linkedin", entry);

    expect(world.requestCount("linkedin") - countBefore).toBe(1_200);
    expect(world.requests("linkedin").length - logBefore).toBe(0); // why the log's length cannot measure a window
    expect(world.requests("linkedin")).toHaveLength(LOG_KEPT);
  });

  it("counts each platform on its own and starts again on reset", () => {
    const world = new SimWorld({ now: () => 0 });
    world.log("x", entry);
    world.log("x", entry);
    world.log("reddit", entry);
    expect([world.requestCount("x"), world.requestCount("reddit"), world.requestCount("youtube")]).toEqual([2, 1, 0]);
    world.reset();
    expect(world.requestCount("x")).toBe(0);
  });
});
