import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { projectService } from "@earshot/project";
import { PROJECT_EVENTS, type ProjectEvent, type ProjectEventType } from "@earshot/contracts/events";
import {
  createGrpcClient,
  createInProcessBus,
  type DocumentStore,
  type EventData,
  type GrpcClientHandle,
  ManualClock,
  openEmbeddedStore,
  runWithCaller,
  silentLogger,
  type Subscription,
  subscribeDomainEvents,
} from "@earshot/platform";
import { hostServiceForTest, receivedEvent, type ServiceUnderTest } from "@earshot/platform/testing";
import { commonV1, projectV1 } from "@earshot/proto";
import { testCaller } from "../../../platform/src/testing/caller";
import { MembershipCache } from "./memberships";

// The edge's membership cache against the real project service (hosted as the all-in-one hosts it, over
// a real gRPC hop) and its real events on the in-process bus. Tests wait for an event to be applied,
// never for time to pass; the cache's age runs on a manual clock.

const { Role } = commonV1;
const MAX_AGE_MS = 60_000;

describe("membership cache", () => {
  let hosted: ServiceUnderTest;
  let project: GrpcClientHandle<projectV1.ProjectServiceClient>;
  let edgeStore: DocumentStore;
  const bus = createInProcessBus();
  let clock: ManualClock;
  let cache: MembershipCache;
  let subscription: Subscription;
  /** Lets a test hold a load's answer back until it has changed something meanwhile. */
  let gate: Promise<void> | undefined;
  let n = 0;

  beforeAll(async () => {
    hosted = await hostServiceForTest(projectService, { bus });
    project = createGrpcClient(projectV1.ProjectServiceClient, hosted.address);
    edgeStore = await openEmbeddedStore();
  });

  beforeEach(async () => {
    clock = new ManualClock();
    gate = undefined;
    cache = new MembershipCache({
      load: async (userId) => {
        const { memberships } = await project.client.listMemberships({ userId });
        await gate;
        return memberships;
      },
      maxAgeMs: MAX_AGE_MS,
      now: () => clock.now().getTime(),
    });
    subscription = await subscribeDomainEvents({
      bus,
      store: edgeStore,
      clock,
      logger: silentLogger(),
      groupId: `edge.memberships.test-${++n}`,
      events: PROJECT_EVENTS,
      handle: async (event) => cache.apply(event),
    });
  });

  afterEach(async () => {
    await subscription.stop();
  });

  afterAll(async () => {
    project.close();
    await hosted.stop();
    await bus.close();
    await edgeStore.close();
  });

  const person = (name: string) => {
    n += 1;
    return { id: `usr_${name}${n}`, workspaceId: `wsp_${name}${n}`, email: `${name}${n}@example.com` };
  };
  type Person = ReturnType<typeof person>;

  const as = <T>(who: Person, fn: () => Promise<T>) => runWithCaller(testCaller(who), fn);

  /** Resolves when the cache has applied the first event of `type` that `match` accepts. */
  const applied = <K extends ProjectEventType>(type: K, match: (data: EventData<typeof PROJECT_EVENTS, K>) => boolean = () => true) =>
    new Promise<ProjectEvent>((resolve) => {
      const off = cache.onApplied((event) => {
        if (event.type === type && match(event.data as EventData<typeof PROJECT_EVENTS, K>)) {
          off();
          resolve(event);
        }
      });
    });

  /**
   * Creates a project and resolves once the cache has applied its project.created: an event still on its
   * way when a test loads the owner would mark that load stale and make the test's load count a race.
   */
  const createProject = async (owner: Person) => {
    const created = applied("project.created", (d) => d.ownerId === owner.id);
    const id = (await as(owner, () => project.client.createProject({ name: "Team" }))).project!.id;
    await created;
    return id;
  };

  const tokenMailedTo = async (email: string): Promise<string> => {
    const dir = join(hosted.dataDir, "mail");
    for (const file of (await readdir(dir)).sort().reverse()) {
      const text = (await readFile(join(dir, file), "utf8")).replace(/=\r?\n/g, "").replace(/=3D/g, "=");
      if (!text.includes(email)) continue;
      const match = /\/invitations\/([A-Za-z0-9_-]{20,})/.exec(text);
      if (match) return match[1] as string;
    }
    throw new Error(`no invitation mailed to ${email}`);
  };

  /** Invites `member` as a viewer and accepts; resolves with the member id once the cache applied member.added. */
  const join_ = async (owner: Person, projectId: string, member: Person) => {
    const added = applied("member.added", (d) => d.userId === member.id && d.projectId === projectId);
    await as(owner, () =>
      project.client.inviteProjectMember({ projectId, email: member.email, role: Role.ROLE_VIEWER, acceptUrlBase: "https://earshot.test" }),
    );
    const token = await tokenMailedTo(member.email);
    const { member: row } = await project.client.acceptInvitation({ token, userId: member.id, userEmail: member.email, userName: "Member" });
    await added;
    return row!.id;
  };

  it("warms a miss with one ListMemberships call shared by concurrent requests, and answers hits without a call", async () => {
    const owner = person("olive");
    const first = await createProject(owner);
    const second = await createProject(owner);
    const answers = await Promise.all([cache.forUser(owner.id), cache.forUser(owner.id), cache.forUser(owner.id)]);
    expect(cache.loads).toBe(1);
    for (const answer of answers) {
      expect(answer).toEqual(expect.arrayContaining([{ projectId: first, role: Role.ROLE_OWNER, workspaceId: owner.workspaceId }, { projectId: second, role: Role.ROLE_OWNER, workspaceId: owner.workspaceId }]));
    }
    expect(await cache.forUser(owner.id)).toHaveLength(2);
    expect(cache.loads).toBe(1);
  });

  it("keeps a cached user current from member.added, member.role_changed and member.removed, without a call", async () => {
    const owner = person("olive");
    const ed = person("ed");
    const projectId = await createProject(owner);
    expect(await cache.forUser(ed.id)).toEqual([]);
    const loads = cache.loads;

    const memberId = await join_(owner, projectId, ed);
    expect(cache.peek(ed.id)).toEqual([{ projectId, role: Role.ROLE_VIEWER, workspaceId: owner.workspaceId }]);

    const changed = applied("member.role_changed", (d) => d.userId === ed.id);
    await as(owner, () => project.client.updateProjectMember({ projectId, memberId, role: Role.ROLE_EDITOR, memberType: commonV1.MemberType.MEMBER_TYPE_MEMBER }));
    await changed;
    expect(await cache.forUser(ed.id)).toEqual([{ projectId, role: Role.ROLE_EDITOR, workspaceId: owner.workspaceId }]);

    const removed = applied("member.removed", (d) => d.userId === ed.id);
    await as(owner, () => project.client.removeProjectMember({ projectId, memberId, memberType: commonV1.MemberType.MEMBER_TYPE_MEMBER }));
    await removed;
    expect(await cache.forUser(ed.id)).toEqual([]);
    expect(cache.loads).toBe(loads);
  });

  it("adds a created project to its owner's cached memberships and drops an archived one from every cached user", async () => {
    const owner = person("olive");
    const ed = person("ed");
    const kept = await createProject(owner);
    const doomed = await createProject(owner);
    await join_(owner, doomed, ed);
    await Promise.all([cache.forUser(owner.id), cache.forUser(ed.id)]);
    const loads = cache.loads;

    const created = applied("project.created", (d) => d.ownerId === owner.id);
    const fresh = await createProject(owner);
    await created;
    expect(cache.peek(owner.id)).toEqual(expect.arrayContaining([{ projectId: fresh, role: Role.ROLE_OWNER, workspaceId: owner.workspaceId }]));

    const archived = applied("project.archived", (d) => d.projectId === doomed);
    await as(owner, () => project.client.archiveProject({ projectId: doomed }));
    await archived;
    expect((await cache.forUser(owner.id)).map((m) => m.projectId).sort()).toEqual([kept, fresh].sort());
    expect(await cache.forUser(ed.id)).toEqual([]);
    expect(cache.loads).toBe(loads);
  });

  it("adds a granted membership to a cached user without a call, stores nothing for others, and keeps no load that began before it", async () => {
    // A cache of its own, which hears no events: the shared one's consumer group may still be replaying.
    let hold: Promise<void> | undefined;
    const own = new MembershipCache({
      load: async (userId) => {
        const { memberships } = await project.client.listMemberships({ userId });
        await hold;
        return memberships;
      },
      maxAgeMs: MAX_AGE_MS,
    });
    const granted = (who: Person) => ({ projectId: `prj_of_${who.id}`, role: Role.ROLE_OWNER, workspaceId: who.workspaceId });
    const owner = person("olive");
    expect(await own.forUser(owner.id)).toEqual([]);
    own.grant(owner.id, granted(owner));
    expect(await own.forUser(owner.id)).toEqual([granted(owner)]);
    expect(own.loads).toBe(1);

    // Nothing cached: the next request loads what the service already committed.
    const ann = person("ann");
    own.grant(ann.id, granted(ann));
    expect(own.peek(ann.id)).toBeUndefined();

    let release!: () => void;
    hold = new Promise<void>((resolve) => (release = resolve));
    const tom = person("tom");
    const loading = own.forUser(tom.id);
    own.grant(tom.id, granted(tom));
    release();
    await loading;
    expect(own.peek(tom.id)).toBeUndefined();
  });

  it("forgets a cached user on a member.added that does not name the workspace, so the next request loads it", async () => {
    const owner = person("olive");
    const ed = person("ed");
    const projectId = await createProject(owner);
    await cache.forUser(ed.id);
    const loads = cache.loads;
    // An event written before member events named the project's workspace cannot fill an entry.
    cache.apply(receivedEvent(PROJECT_EVENTS, "member.added", { projectId, memberType: "member", userId: ed.id, role: "editor" }, clock));
    expect(cache.peek(ed.id)).toBeUndefined();
    await cache.forUser(ed.id);
    expect(cache.loads).toBe(loads + 1);
  });

  it("loads again once an entry is older than its maximum age", async () => {
    const owner = person("olive");
    await createProject(owner);
    await cache.forUser(owner.id);
    clock.advance(MAX_AGE_MS - 1);
    await cache.forUser(owner.id);
    expect(cache.loads).toBe(1);
    clock.advance(1);
    await cache.forUser(owner.id);
    expect(cache.loads).toBe(2);
  });

  it("does not keep an answer that an event about the user overtook, so the next request loads again", async () => {
    const owner = person("olive");
    const ed = person("ed");
    const projectId = await createProject(owner);
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    const pending = cache.forUser(ed.id);
    await join_(owner, projectId, ed);
    release();
    gate = undefined;
    await pending;
    expect(cache.peek(ed.id)).toBeUndefined();
    expect(await cache.forUser(ed.id)).toEqual([{ projectId, role: Role.ROLE_VIEWER, workspaceId: owner.workspaceId }]);
    expect(cache.loads).toBe(2);
  });

  it("ignores replayed events older than a cached entry, so a removed member's role does not come back", async () => {
    const owner = person("olive");
    const ed = person("ed");
    const projectId = await createProject(owner);
    const memberId = await join_(owner, projectId, ed);
    const removed = applied("member.removed", (d) => d.userId === ed.id);
    await as(owner, () => project.client.removeProjectMember({ projectId, memberId, memberType: commonV1.MemberType.MEMBER_TYPE_MEMBER }));
    await removed;
    // A process started after all this: its cache loads ed (no memberships) before its consumer group,
    // new to the bus, replays the project's events from the earliest retained one.
    const fresh = new MembershipCache({ load: async (userId) => (await project.client.listMemberships({ userId })).memberships, maxAgeMs: MAX_AGE_MS });
    expect(await fresh.forUser(ed.id)).toEqual([]);
    // What a request would have been given while the replay was between the two events.
    let afterReplayedAdd: unknown;
    const replayed = new Promise<void>((resolve) => {
      const off = fresh.onApplied((event) => {
        const about = "userId" in event.data && event.data.userId === ed.id;
        if (event.type === "member.added" && about) afterReplayedAdd = fresh.peek(ed.id);
        if (event.type === "member.removed" && about) {
          off();
          resolve();
        }
      });
    });
    const late = await subscribeDomainEvents({
      bus,
      store: edgeStore,
      clock,
      logger: silentLogger(),
      groupId: `edge.memberships.late-${++n}`,
      events: PROJECT_EVENTS,
      handle: async (event) => fresh.apply(event),
    });
    await replayed;
    await late.stop();
    expect(afterReplayedAdd).toEqual([]);
    expect(fresh.peek(ed.id)).toEqual([]);
    expect(fresh.loads).toBe(1);
  });
});
