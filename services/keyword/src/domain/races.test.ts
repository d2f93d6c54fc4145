import { createKeyword, keywordsInUse, type KeywordFields } from "./keywords";
import { createKeywordGroup, deleteKeywordGroup } from "./groups";
import { keywordInput, type KeywordWorld, openKeywordWorld } from "../test-support";

// Limits and uniqueness hold when requests race, in one process and across replicas sharing a store.

describe("keyword races", () => {
  let world: KeywordWorld;
  let projectId: string;
  beforeEach(async () => {
    world = await openKeywordWorld();
    projectId = await world.newProject();
  });
  afterEach(() => world.close());

  const input = (v: string, more: Record<string, unknown> = {}) => keywordInput(projectId, v, more) as KeywordFields & { projectId: string };
  const settled = async (runs: Array<Promise<unknown>>) => {
    const results = await Promise.allSettled(runs);
    const codes = results.map((r) => (r.status === "fulfilled" ? "ok" : (r.reason as { code: string }).code));
    return { ok: codes.filter((c) => c === "ok").length, codes };
  };

  it("admits exactly the allowance of 20 parallel creates from two replicas", async () => {
    const caller = world.caller({ [projectId]: "editor" }, { allowances: { keywords: 10 } });
    const replicas = [world.deps, world.replica()];
    const { ok, codes } = await settled(Array.from({ length: 20 }, (_, i) => createKeyword(replicas[i % 2]!, caller, input(`brand ${i}`))));
    expect(ok).toBe(10);
    expect(codes.filter((c) => c === "usage_limited")).toHaveLength(10);
    expect(await keywordsInUse(world.deps, "wsp_1")).toBe(10);
  });

  it("keeps one active keyword when the same value is created in parallel on two replicas", async () => {
    const caller = world.caller({ [projectId]: "editor" });
    const { ok, codes } = await settled([createKeyword(world.deps, caller, input("Acme")), createKeyword(world.replica(), caller, input("ACME"))]);
    expect(ok).toBe(1);
    expect(codes).toContain("conflict");
  });

  it("answers a re-run with the same idempotency key with the first keyword, even in parallel", async () => {
    const caller = world.caller({ [projectId]: "editor" });
    const [a, b] = await Promise.all([
      createKeyword(world.deps, caller, input("Initech"), "req-key-1"),
      createKeyword(world.replica(), caller, input("Initech"), "req-key-1"),
    ]);
    expect(a._id).toBe(b._id);
    expect((await world.events()).filter((e) => e.type === "keyword.created")).toHaveLength(1);
  });

  it("never leaves an active keyword in a group deleted while a create into it races", async () => {
    const caller = world.caller({ [projectId]: "editor" });
    const group = await createKeywordGroup(world.deps, caller, { projectId, name: "Rivals" });
    const { codes } = await settled([
      createKeyword(world.replica(), caller, input("Globex", { groupId: group.group._id })),
      deleteKeywordGroup(world.deps, caller, group.group._id),
    ]);
    const orphans = await world.deps.collections.keywords.find({ groupId: group.group._id, active: true });
    const groupLeft = await world.deps.collections.groups.findById(group.group._id);
    // Either the keyword landed first (the delete is refused) or the group went first (the create is refused).
    expect(groupLeft === null ? orphans.length : 0).toBe(0);
    expect(codes.filter((c) => c === "ok").length).toBe(1);
  });
});

describe("archival racing keyword writes", () => {
  it("never leaves an active keyword in a project archived while a create was between its checks and its commit", async () => {
    const world = await openKeywordWorld();
    const projectId = await world.newProject();
    const caller = world.caller({ [projectId]: "editor" });
    const other = world.replica();
    // The create on the other replica reads the project (not archived yet), then the archival runs
    // completely before the create commits.
    const original = other.guard.runOnce.bind(other.guard);
    other.guard.runOnce = ((...args: Parameters<typeof original>) => {
      const [workspaceId, key, replay, fn] = args;
      let archived = false;
      return original(workspaceId, key, replay, async (commit) => {
        const result = await fn(async (writes, events, effect) => {
          if (!archived) {
            archived = true;
            await world.projectEvent("project.archived", { projectId, workspaceId: "wsp_1" });
          }
          await commit(writes, events, effect);
        });
        return result;
      });
    }) as typeof original;
    const outcome = await createKeyword(other, caller, keywordInput(projectId, "Late") as KeywordFields & { projectId: string }).catch((e: { code: string }) => e.code);
    expect(outcome).toBe("not_found");
    expect(await world.deps.collections.keywords.count({ projectId, active: true })).toBe(0);
    expect(await keywordsInUse(world.deps, "wsp_1")).toBe(0);
    await world.close();
  });
});
