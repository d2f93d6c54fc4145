import { isDomainError } from "@earshot/platform/core";
import { type MentionWorld, openMentionWorld, refusalOf } from "../test-support";
import { numberOlderMentions } from "./change-backfill";
import { encodeChangeCursor } from "./change-cursor";
import { createCategory, deleteCategory } from "./categories";
import { listMentionChanges } from "./changes";
import { ingestPosts } from "./ingest";
import { categorizeMention, updateMentionStatus } from "./mentions";
import { regroupKeywordMentions } from "./regroup";

// The change feed's rules on the embedded store: what each write numbers, created vs updated, coalescing,
// cursors (other project, made up, latest, expired), filters moving the cursor on, the long poll waking on
// a commit, and older mentions numbered once.

const DAY = 86_400_000;

/** Until `n` reads wait in the process: turns of the event loop, no timer. */
const untilWaiting = async (world: MentionWorld, n: number) => {
  for (let turns = 0; world.deps.changes.waiting !== n; turns++) {
    if (turns > 10_000) throw new Error(`${n} waiting reads never registered`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
};

describe("the mention change feed", () => {
  let world: MentionWorld;
  let projectId: string;
  let keyword: { keywordId: string; groupId: string };
  const viewer = () => world.caller({ [projectId]: "viewer" });
  const editor = () => world.caller({ [projectId]: "editor" });
  const read = (input: Record<string, unknown> = {}) => listMentionChanges(world.deps, viewer(), { projectId, ...input });
  const ingest = (n: number, text = "acme rocks") => ingestPosts(world.deps, Array.from({ length: n }, () => world.post(projectId, { text })));

  beforeEach(async () => {
    world = await openMentionWorld();
    projectId = await world.newProject();
    keyword = await world.addKeyword(projectId, "acme");
  });
  afterEach(() => world.close());

  it("numbers an ingested batch in one commit and reads it in commit order, then triage as updated, each mention once in its latest state", async () => {
    const commitsBefore = world.mentionCommits().length;
    await ingest(3);
    expect(world.mentionCommits().length).toBe(commitsBefore + 1);
    const first = await read();
    expect(first.changes.map((c) => [c.seq, c.change])).toEqual([[1, "created"], [2, "created"], [3, "created"]]);
    expect(first.hasMore).toBe(false);
    const [a, b] = first.changes.map((c) => c.mention._id);
    await updateMentionStatus(world.deps, editor(), a!, "done");
    await updateMentionStatus(world.deps, editor(), b!, "done");
    await updateMentionStatus(world.deps, editor(), a!, "follow_up");
    const second = await read({ cursor: first.nextCursor });
    // a changed twice: once, at its latest change, in its latest state.
    expect(second.changes.map((c) => [c.mention._id, c.seq, c.change, c.mention.status])).toEqual([
      [b, 5, "updated", "done"],
      [a, 6, "updated", "follow_up"],
    ]);
    // From the start, a mention created and then changed is still `created`.
    expect((await read()).changes.map((c) => c.change)).toEqual(["created", "created", "created"]);
    const quiet = await read({ cursor: second.nextCursor });
    expect(quiet).toMatchObject({ changes: [], hasMore: false });
  });

  it("pages with hasMore and a nextCursor that never repeats or skips", async () => {
    await ingest(5);
    const seen: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await read({ cursor, limit: 2 });
      seen.push(...page.changes.map((c) => c.seq));
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it("numbers category deletions, categorizations and regroupings", async () => {
    await ingest(2);
    const { nextCursor } = await read();
    const [m1, m2] = (await read()).changes.map((c) => c.mention._id);
    const leads = await createCategory(world.deps, editor(), { projectId, name: "Leads" });
    await categorizeMention(world.deps, editor(), m1!, leads._id);
    await deleteCategory(world.deps, editor(), leads._id);
    await world.keywordEvent("keyword.updated", { ...keyword, groupId: "kwg_rivals", fields: ["groupId"] });
    const after = await read({ cursor: nextCursor });
    const latest = new Map(after.changes.map((c) => [c.mention._id, c.mention]));
    expect(latest.get(m1!)).toMatchObject({ groupIds: ["kwg_rivals"] });
    expect(latest.get(m1!)?.categoryId).toBeUndefined();
    expect(latest.get(m2!)).toMatchObject({ groupIds: ["kwg_rivals"] });
    // A regroup that changes nothing numbers nothing.
    const head = (await world.deps.collections.sequences.findById(projectId))!.seq;
    await regroupKeywordMentions(world.deps, projectId, keyword.keywordId);
    expect((await world.deps.collections.sequences.findById(projectId))!.seq).toBe(head);
  });

  it("applies filters to the mentions as they are now, and moves the cursor past what did not match", async () => {
    const other = await world.addKeyword(projectId, "globex", { groupId: "kwg_rivals" });
    await ingest(2, "globex news");
    await ingest(1, "acme news");
    const page = await read({ filters: { keywordId: [other.keywordId] } });
    expect(page.changes).toHaveLength(2);
    const quiet = await read({ filters: { groupId: ["kwg_rivals"] }, cursor: page.nextCursor });
    expect(quiet.changes).toHaveLength(0);
    // The acme mention (seq 3) was passed over, so the next read starts after it.
    await ingest(1, "globex again");
    expect((await read({ filters: { keywordId: [other.keywordId] }, cursor: quiet.nextCursor })).changes.map((c) => c.seq)).toEqual([4]);
  });

  it("starts at the head with latest, and refuses made-up, other projects' and too-new cursors naming cursor", async () => {
    await ingest(2);
    const latest = await read({ cursor: "latest" });
    expect(latest.changes).toHaveLength(0);
    await ingest(1);
    expect((await read({ cursor: latest.nextCursor })).changes.map((c) => c.seq)).toEqual([3]);
    const otherProject = await world.newProject();
    const foreign = (await listMentionChanges(world.deps, world.caller({ [otherProject]: "viewer" }), { projectId: otherProject })).nextCursor;
    for (const cursor of ["nope!", "eyJ2IjoxfQ", foreign, encodeChangeCursor({ projectId, seq: 99, issuedAt: world.clock.now() })]) {
      expect((await refusalOf(read({ cursor }))).errors.map((e) => e.path)).toEqual(["cursor"]);
    }
    expect((await refusalOf(read({ waitSeconds: 31 }))).errors.map((e) => e.path)).toEqual(["wait"]);
    expect((await refusalOf(read({ limit: 0 }))).errors.map((e) => e.path)).toEqual(["limit"]);
    expect((await refusalOf(listMentionChanges(world.deps, world.caller({}), { projectId }))).code).toBe("not_found");
  });

  it("answers 410 with the oldest cursor still served once a cursor is older than the retention", async () => {
    await ingest(2);
    const old = await read();
    world.clock.advance(20 * DAY);
    await ingest(1);
    world.clock.advance(11 * DAY);
    await ingest(1);
    const err = await read({ cursor: old.nextCursor }).catch((e: unknown) => e);
    expect(isDomainError(err) && err.code).toBe("cursor_expired");
    const { oldestCursor } = (err as { details: { oldestCursor: string } }).details;
    // The horizon (30 days back) falls on day 1: the feed starts before the first change since, day 20's.
    expect((await read({ cursor: oldestCursor })).changes.map((c) => c.seq)).toEqual([3, 4]);
    expect((await read()).changes.map((c) => c.seq)).toEqual([3, 4]);
  });

  it("waits for a commit of the project and answers with it (a long poll)", async () => {
    const { nextCursor } = await read();
    const waiting = read({ cursor: nextCursor, waitSeconds: 10 });
    // Woken by the commit, not by the deadline: it has the change.
    await untilWaiting(world, 1);
    await ingest(1);
    const answered = await waiting;
    expect(answered.changes.map((c) => c.change)).toEqual(["created"]);
    expect(world.deps.changes.waiting).toBe(0);
    // The caller going away ends the wait at once, empty.
    const abort = new AbortController();
    const gone = read({ cursor: answered.nextCursor, waitSeconds: 30, signal: abort.signal });
    await untilWaiting(world, 1);
    abort.abort();
    expect(await gone).toMatchObject({ changes: [], nextCursor: answered.nextCursor });
  });

  it("numbers mentions stored before the feed once, oldest first, then marks the project", async () => {
    const older = await world.seedMention(projectId, { matchedAt: new Date(world.clock.now().getTime() - 2000) });
    const newer = await world.seedMention(projectId, { matchedAt: new Date(world.clock.now().getTime() - 1000) });
    expect((await read()).changes).toHaveLength(0);
    expect(await numberOlderMentions(world.deps)).toEqual({ projects: 1, mentions: 2 });
    expect((await read()).changes.map((c) => [c.mention._id, c.change])).toEqual([
      [older._id, "created"],
      [newer._id, "created"],
    ]);
    expect(await numberOlderMentions(world.deps)).toEqual({ projects: 0, mentions: 0 });
  });
});
