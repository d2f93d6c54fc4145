import { DomainError } from "@earshot/platform/core";
import { MEMBERS, PROJECTS } from "../store";
import { openProjectWorld, type ProjectWorld } from "../test-support";
import { inviteMember } from "./members";
import { createProject } from "./projects";

// Two replicas of the service share one store but not their in-process queues, so these races go through
// the optimistic check of the workspace guard itself; and re-runs with one effect key create once.

let world: ProjectWorld;
beforeEach(async () => {
  world = await openProjectWorld();
});
afterEach(async () => {
  await world.close();
});

const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "ok",
    (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
  );

const tally = (outcomes: string[]) => outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o]: (acc[o] ?? 0) + 1 }), {});

describe("plan limits across replicas", () => {
  it("makes exactly 10 projects when two replicas race 20 creates on a 10-project plan", async () => {
    const replicas = [world.deps, world.replica()];
    const caller = world.caller();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => outcome(createProject(replicas[i % 2]!, caller, { name: `Race ${i}` }))),
    );
    expect(tally(outcomes)).toEqual({ ok: 10, usage_limited: 10 });
    expect(await world.store.collection(PROJECTS).count({ workspaceId: caller.workspaceId })).toBe(10);
  });

  it("fills exactly 10 seats when two replicas race 20 invitations of distinct people", async () => {
    const caller = world.caller();
    const { project } = await createProject(world.deps, caller, { name: "Team" });
    const replicas = [world.deps, world.replica()];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        outcome(inviteMember(replicas[i % 2]!, caller, { projectId: project._id, email: `p${i}@example.com`, role: "viewer", acceptUrlBase: "http://localhost" })),
      ),
    );
    expect(tally(outcomes)).toEqual({ ok: 10, usage_limited: 10 });
    expect(await world.store.collection(MEMBERS).count({ memberType: "invite" })).toBe(10);
    expect(await world.mailCount()).toBe(10);
  });

  it("keeps one invitation and one email when two replicas race 10 invitations of one address", async () => {
    const caller = world.caller();
    const { project } = await createProject(world.deps, caller, { name: "Team" });
    const replicas = [world.deps, world.replica()];
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        outcome(inviteMember(replicas[i % 2]!, caller, { projectId: project._id, email: "same@example.com", role: "viewer", acceptUrlBase: "http://localhost" })),
      ),
    );
    expect(tally(outcomes)).toEqual({ ok: 1, conflict: 9 });
    expect(await world.mailCount()).toBe(1);
  });
});

describe("creates re-run with one effect key", () => {
  it("returns the same project and stores one when a create is re-run with the same effect key", async () => {
    const caller = world.caller();
    const first = await createProject(world.deps, caller, { name: "Once" }, "effect-key-1");
    const again = await createProject(world.deps, caller, { name: "Once" }, "effect-key-1");
    expect(again.project._id).toBe(first.project._id);
    expect(again.role).toBe("owner");
    expect(await world.store.collection(PROJECTS).count({})).toBe(1);
    const other = await createProject(world.deps, caller, { name: "Once" }, "effect-key-2");
    expect(other.project._id).not.toBe(first.project._id);
  });

  it("stores one project and answers it to both when two replicas run a create with one effect key at once", async () => {
    const caller = world.caller();
    const [a, b] = await Promise.all([
      createProject(world.deps, caller, { name: "Twice" }, "effect-key-race"),
      createProject(world.replica(), caller, { name: "Twice" }, "effect-key-race"),
    ]);
    expect(a.project._id).toBe(b.project._id);
    expect(await world.store.collection(PROJECTS).count({})).toBe(1);
    expect(await world.store.collection(MEMBERS).count({})).toBe(1);
  });

  it("answers the winner's project to a concurrent create with the same key that would fill the plan, on one replica or two", async () => {
    const caller = world.caller({ allowances: { projects: 1, seats: 10 } });
    for (const [i, second] of [world.deps, world.replica()].entries()) {
      await world.store.collection(PROJECTS).deleteMany({});
      const key = `effect-key-last-slot-${i}`;
      const results = await Promise.all([createProject(world.deps, caller, { name: "Last" }, key), createProject(second, caller, { name: "Last" }, key)]);
      expect(results[1].project._id).toBe(results[0].project._id);
      expect(await world.store.collection(PROJECTS).count({})).toBe(1);
    }
  });

  it("answers the winner's invitation to a concurrent invitation with the same key instead of 409 already invited", async () => {
    const caller = world.caller();
    const { project } = await createProject(world.deps, caller, { name: "Team" });
    const input = { projectId: project._id, email: "both@example.com", role: "viewer", acceptUrlBase: "http://localhost" };
    for (const second of [world.deps, world.replica()]) {
      await world.store.collection(MEMBERS).deleteMany({ memberType: "invite" });
      const key = `effect-key-invite-${second === world.deps ? "same" : "other"}`;
      const [a, b] = await Promise.all([inviteMember(world.deps, caller, input, key), inviteMember(second, caller, input, key)]);
      expect(b._id).toBe(a._id);
    }
  });

  it("returns the same invitation and sends no second email when an invitation is re-run with the same effect key", async () => {
    const caller = world.caller();
    const { project } = await createProject(world.deps, caller, { name: "Team" });
    const input = { projectId: project._id, email: "once@example.com", role: "editor", acceptUrlBase: "http://localhost" };
    const first = await inviteMember(world.deps, caller, input, "effect-key-invite");
    const again = await inviteMember(world.deps, caller, input, "effect-key-invite");
    expect(again._id).toBe(first._id);
    expect(await world.store.collection(MEMBERS).count({ memberType: "invite" })).toBe(1);
    expect(await world.mailCount()).toBe(1);
  });
});
