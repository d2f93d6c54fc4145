import { ProviderRateLimited } from "../collectors/provider-errors";
import { pollerId } from "../store";
import { TestCollector, testPost } from "../collector-test-support";
import { type IntegrationWorld, openIntegrationWorld, refusalOf } from "../test-support";
import { claimPoller, pollNow } from "./poll";

// pollNow: one poll of a (project, source) at once, as a metered sync runs it.

let world: IntegrationWorld;
let x: TestCollector;

beforeEach(async () => {
  x = new TestCollector("x");
  world = await openIntegrationWorld({
    platforms: ["x"],
    collectors: { x, reddit: new TestCollector("reddit", false), youtube: new TestCollector("youtube", false), linkedin: new TestCollector("linkedin", false) },
  });
});
afterEach(async () => {
  await world.close();
});

const xProject = async () => {
  const projectId = await world.newProject();
  await world.addKeyword(projectId, "acme", { sources: ["x"] });
  return projectId;
};

describe("pollNow", () => {
  it("polls a source that is not due yet and emits what it finds", async () => {
    const projectId = await xProject();
    await world.deps.collections.pollers.updateOne({ _id: pollerId(projectId, "x") }, { $set: { nextPollAt: new Date(world.clock.now().getTime() + 3_600_000) } });
    x.answer({ posts: [testPost("x", world.clock.now()), testPost("x", world.clock.now())], cursor: { sinceId: "2" }, skipped: 0 });
    expect(await pollNow(world.deps, projectId, "x")).toEqual({ postsFound: 2 });
    expect((await world.events()).filter((e) => e.type === "post.collected")).toHaveLength(2);
    expect((await world.deps.collections.pollers.findById(pollerId(projectId, "x")))?.cursor).toEqual({ sinceId: "2" });
  });

  it("answers 409 while another poll of the source holds a live lease", async () => {
    const projectId = await xProject();
    const poller = await world.deps.collections.pollers.findById(pollerId(projectId, "x"));
    await claimPoller(world.replica(), poller!);
    const refusal = await refusalOf(pollNow(world.deps, projectId, "x"));
    expect(refusal).toMatchObject({ code: "conflict", message: "a poll of this source is running" });
    expect(x.polls).toHaveLength(0);
  });

  it("answers 409 for a source the project does not collect", async () => {
    const projectId = await xProject();
    expect((await refusalOf(pollNow(world.deps, projectId, "reddit"))).code).toBe("conflict");
  });

  it("records a provider's rate limit on the poller and throws it to the caller", async () => {
    const projectId = await xProject();
    const reset = new Date(world.clock.now().getTime() + 120_000);
    x.answer(new ProviderRateLimited("x", reset));
    await expect(pollNow(world.deps, projectId, "x")).rejects.toBeInstanceOf(ProviderRateLimited);
    expect(await world.deps.collections.pollers.findById(pollerId(projectId, "x"))).toMatchObject({ backoffUntil: reset, nextPollAt: reset, lastError: { status: 429 } });
  });
});
