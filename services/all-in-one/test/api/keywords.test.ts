import { KEYWORD_EVENTS } from "@earshot/contracts/events";
import { type Actor, type ApiResponse, type Harness, startHarness } from "./harness";
import { busEvents, joinProject, memberIdOf, membershipEventApplied } from "./membership-events";
import { createKeyword, createKeywordGroup, createProject, type KeywordData, keywordInput } from "./world";

type UsageData = { limits: { keywords: { used: number; allowance: number } } };

// Keywords and keyword groups beyond what every operation is tested for (operations.test.ts): the plan's
// allowances, duplicate values under the case rule, the fixed default groups, deleting a group, listing
// and paging, usage, and a project the caller left or that was archived.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

interface GroupData {
  id: string;
  name: string;
  order: number;
  isDefault: boolean;
  keywordCount: number;
  inactiveKeywordCount: number;
}

const FREE_KEYWORDS = 100;

const dataOf = <T>(res: ApiResponse): T => res.body.data as T;

/** Runs `count` calls of `make` in parallel batches, so the store sees real concurrency without a stampede. */
const inBatches = async <T>(count: number, batch: number, make: (i: number) => Promise<T>): Promise<T[]> => {
  const out: T[] = [];
  for (let start = 0; start < count; start += batch) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - start) }, (_, j) => make(start + j)))));
  }
  return out;
};

const groupsOf = async (actor: Actor, projectId: string): Promise<GroupData[]> => {
  const res = await h.call("list_keyword_groups", { projectId, limit: 100 }, actor.key);
  expect(res.status).toBe(200);
  return dataOf<GroupData[]>(res);
};

const defaultGroups = async (actor: Actor, projectId: string) => {
  const groups = await groupsOf(actor, projectId);
  return { myBrand: groups.find((g) => g.name === "My brand" && g.isDefault)!, competitors: groups.find((g) => g.name === "Competitors" && g.isDefault)! };
};

/** Every page of a list, following nextCursor; fails on a page that repeats an id already seen. */
const allPages = async (op: string, input: Record<string, unknown>, key: string, limit: number): Promise<string[]> => {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await h.call(op, { ...input, limit, ...(cursor ? { cursor } : {}) }, key);
    expect(res.status).toBe(200);
    const page = dataOf<Array<{ id: string }>>(res).map((k) => k.id);
    expect(page.length).toBeLessThanOrEqual(limit);
    for (const id of page) expect(ids).not.toContain(id);
    ids.push(...page);
    cursor = (res.body.meta as { nextCursor: string | null }).nextCursor ?? undefined;
    if (!cursor) return ids;
  }
};

const keywordsUsed = async (actor: Actor) => {
  const usage = await h.call("get_usage", {}, actor.key);
  expect(usage.status).toBe(200);
  return (usage.body.data as { limits: { keywords: { allowance: number; used: number } } }).limits.keywords;
};

describe("the keyword allowance", () => {
  it("answers 402 usage_limited naming keywords for the workspace's 101st active keyword, counts a deleted one out and refuses reactivating over it", async () => {
    const owner = await h.newActor();
    // The allowance is the workspace's: its keywords are spread over two projects.
    const projects = [await createProject(h, owner), await createProject(h, owner)];
    const keywords = await inBatches(FREE_KEYWORDS, 10, (i) => createKeyword(h, owner, projects[i % 2]!, { value: `Brand ${i}` }));
    expect(await keywordsUsed(owner)).toEqual({ allowance: FREE_KEYWORDS, used: FREE_KEYWORDS, available: true });

    const over = await h.call("create_keyword", keywordInput(projects[0]!, "One too many"), owner.key);
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ code: "usage_limited", limit: "keywords" });

    const first = keywords[0]!;
    expect((await h.call("delete_keyword", { keywordId: first.id }, owner.key)).status).toBe(200);
    expect(await keywordsUsed(owner)).toEqual({ allowance: FREE_KEYWORDS, used: FREE_KEYWORDS - 1, available: true });
    expect((await h.call("create_keyword", keywordInput(projects[1]!, "Fits again"), owner.key)).status).toBe(201);

    const reactivated = await h.call("update_keyword", { keywordId: first.id, active: true }, owner.key);
    expect(reactivated.status).toBe(402);
    expect(reactivated.body).toMatchObject({ code: "usage_limited", limit: "keywords" });
    expect(dataOf<KeywordData>(await h.call("get_keyword", { keywordId: first.id }, owner.key)).active).toBe(false);
    expect(await keywordsUsed(owner)).toEqual({ allowance: FREE_KEYWORDS, used: FREE_KEYWORDS, available: true });
  }, 120_000);

  it("caps a project's groups, My brand and Competitors included, at the keyword allowance with 402 naming keyword_groups", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    await inBatches(FREE_KEYWORDS - 2, 10, (i) => createKeywordGroup(h, owner, projectId, `Group ${i}`));
    const over = await h.call("create_keyword_group", { projectId, name: "One too many" }, owner.key);
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ code: "usage_limited", limit: "keyword_groups" });
    // Another project of the same workspace has groups of its own to spend.
    const other = await createProject(h, owner);
    expect((await h.call("create_keyword_group", { projectId: other, name: "Fine here" }, owner.key)).status).toBe(201);
  }, 120_000);
});

describe("duplicate keyword values", () => {
  let owner: Actor;
  let projectId: string;
  beforeAll(async () => {
    owner = await h.newActor();
    projectId = await createProject(h, owner);
  });

  const create = (value: string, caseSensitive: boolean, project = projectId) =>
    h.call("create_keyword", { ...keywordInput(project, value), caseSensitive }, owner.key);

  it("answers 409 conflict to a value that folds to an active keyword's when neither is case-sensitive, case and accents alike", async () => {
    expect((await create("Acme", false)).status).toBe(201);
    for (const value of ["acme", "ACME", "Ácme"]) {
      const dup = await create(value, false);
      expect({ value, status: dup.status, code: dup.body.code }).toEqual({ value, status: 409, code: "conflict" });
    }
    // The rule is per project.
    expect((await create("acme", false, await createProject(h, owner))).status).toBe(201);
  });

  it("takes case-sensitive values that differ only in case", async () => {
    expect((await create("Zeta", true)).status).toBe(201);
    expect((await create("zeta", true)).status).toBe(201);
    const same = await create("Zeta", true);
    expect(same.status).toBe(409);
    expect(same.body.code).toBe("conflict");
  });

  it("lets a deactivated keyword's value be used again, then refuses to reactivate it or rename another to it (409)", async () => {
    const old = dataOf<KeywordData>(await create("Globex", false));
    expect((await h.call("delete_keyword", { keywordId: old.id }, owner.key)).status).toBe(200);
    const again = await create("globex", false);
    expect(again.status).toBe(201);
    const reactivated = await h.call("update_keyword", { keywordId: old.id, active: true }, owner.key);
    expect(reactivated.status).toBe(409);
    expect(reactivated.body.code).toBe("conflict");
    const other = dataOf<KeywordData>(await create("Initech", false));
    const renamed = await h.call("update_keyword", { keywordId: other.id, value: "GLOBEX" }, owner.key);
    expect(renamed.status).toBe(409);
    expect(renamed.body.code).toBe("conflict");
  });
});

describe("keyword groups", () => {
  let owner: Actor;
  beforeAll(async () => {
    owner = await h.newActor();
  });

  it("gives every project My brand (order 0) and Competitors (order 1) and refuses to rename, reorder or delete them (409)", async () => {
    const projectId = await createProject(h, owner);
    const before = await groupsOf(owner, projectId);
    expect(before.map((g) => [g.name, g.order, g.isDefault])).toEqual([
      ["My brand", 0, true],
      ["Competitors", 1, true],
    ]);
    for (const group of before) {
      for (const [op, input] of [
        ["update_keyword_group", { groupId: group.id, name: "Renamed" }],
        ["update_keyword_group", { groupId: group.id, order: 9 }],
        ["delete_keyword_group", { groupId: group.id }],
      ] as const) {
        const res = await h.call(op, input, owner.key);
        expect({ op, group: group.name, status: res.status, code: res.body.code }).toEqual({ op, group: group.name, status: 409, code: "conflict" });
      }
    }
    expect(await groupsOf(owner, projectId)).toEqual(before);
  });

  it("puts a keyword without groupId in My brand and refuses a group of another project with 400 naming groupId", async () => {
    const projectId = await createProject(h, owner);
    const { myBrand } = await defaultGroups(owner, projectId);
    expect((await createKeyword(h, owner, projectId)).groupId).toBe(myBrand.id);
    const elsewhere = await createKeywordGroup(h, owner, await createProject(h, owner));
    const res = await h.call("create_keyword", { ...keywordInput(projectId), groupId: elsewhere }, owner.key);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors?.map((e) => e.path)).toEqual(["groupId"]);
  });

  it("refuses to delete a group holding an active keyword (409), and once it is moved deletes the group and moves its inactive keywords to My brand", async () => {
    const projectId = await createProject(h, owner);
    const { myBrand, competitors } = await defaultGroups(owner, projectId);
    const groupId = await createKeywordGroup(h, owner, projectId, "Launch");
    const tracked = await createKeyword(h, owner, projectId, { groupId });
    const stopped = await createKeyword(h, owner, projectId, { groupId });
    expect((await h.call("delete_keyword", { keywordId: stopped.id }, owner.key)).status).toBe(200);
    expect((await groupsOf(owner, projectId)).find((g) => g.id === groupId)).toMatchObject({ keywordCount: 1, inactiveKeywordCount: 1 });

    const refused = await h.call("delete_keyword_group", { groupId }, owner.key);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("conflict");

    const moved = await h.call("update_keyword", { keywordId: tracked.id, groupId: competitors.id }, owner.key);
    expect(moved.status).toBe(200);
    expect(dataOf<KeywordData>(moved).groupId).toBe(competitors.id);
    const deleted = await h.call("delete_keyword_group", { groupId }, owner.key);
    expect(deleted.status).toBe(200);
    expect(dataOf<GroupData>(deleted).id).toBe(groupId);

    expect(dataOf<KeywordData>(await h.call("get_keyword", { keywordId: stopped.id }, owner.key))).toMatchObject({ groupId: myBrand.id, active: false });
    const after = await groupsOf(owner, projectId);
    expect(after.map((g) => g.id)).not.toContain(groupId);
    expect(after.find((g) => g.id === myBrand.id)).toMatchObject({ keywordCount: 0, inactiveKeywordCount: 1 });
    expect(after.find((g) => g.id === competitors.id)).toMatchObject({ keywordCount: 1, inactiveKeywordCount: 0 });
  });

  it("lists groups by order, ties in creation order, on every page", async () => {
    const projectId = await createProject(h, owner);
    const { myBrand, competitors } = await defaultGroups(owner, projectId);
    const [late, middle, early] = [
      await createKeywordGroup(h, owner, projectId, "Late"),
      await createKeywordGroup(h, owner, projectId, "Middle"),
      await createKeywordGroup(h, owner, projectId, "Early"),
    ];
    for (const [groupId, order] of [[late, 7], [middle, 3], [early, 0]] as const) {
      const res = await h.call("update_keyword_group", { groupId, order }, owner.key);
      expect(dataOf<GroupData>(res)).toMatchObject({ id: groupId, order });
    }
    // Early shares order 0 with My brand, which is older.
    const expected = [myBrand.id, early, competitors.id, middle, late];
    expect((await groupsOf(owner, projectId)).map((g) => g.id)).toEqual(expected);
    for (const limit of [1, 2, 4]) expect(await allPages("list_keyword_groups", { projectId }, owner.key, limit)).toEqual(expected);
  });
});

describe("listing keywords", () => {
  let owner: Actor;
  let projectId: string;
  let all: KeywordData[];
  let competitors: string;

  beforeAll(async () => {
    owner = await h.newActor();
    projectId = await createProject(h, owner);
    competitors = (await defaultGroups(owner, projectId)).competitors.id;
    all = [];
    // One at a time, so creation order (and so newest first) is well defined.
    for (let i = 0; i < 7; i++) {
      all.push(
        await createKeyword(h, owner, projectId, {
          value: `Listed ${i}`,
          sources: i % 2 === 0 ? ["x"] : ["reddit", "youtube"],
          ...(i % 3 === 0 ? { groupId: competitors } : {}),
        }),
      );
    }
    for (const i of [1, 3]) expect((await h.call("delete_keyword", { keywordId: all[i]!.id }, owner.key)).status).toBe(200);
  });

  const newestFirst = (pick: (k: KeywordData, i: number) => boolean) =>
    all
      .map((k, i) => [k, i] as const)
      .filter(([k, i]) => pick(k, i))
      .map(([k]) => k.id)
      .reverse();
  const list = async (input: Record<string, unknown>) => {
    const res = await h.call("list_keywords", { projectId, limit: 100, ...input }, owner.key);
    expect(res.status).toBe(200);
    return dataOf<KeywordData[]>(res).map((k) => k.id);
  };

  it("lists every keyword of the project, active and deactivated, newest first, and pages without duplicates or gaps", async () => {
    const expected = newestFirst(() => true);
    expect(await list({})).toEqual(expected);
    for (const limit of [1, 2, 3, 7]) expect(await allPages("list_keywords", { projectId }, owner.key, limit)).toEqual(expected);
  });

  it("filters by group, by active (strictly true or false) and by source, alone and together", async () => {
    expect(await list({ groupId: competitors })).toEqual(newestFirst((_k, i) => i % 3 === 0));
    expect(await list({ active: false })).toEqual(newestFirst((_k, i) => i === 1 || i === 3));
    expect(await list({ active: true })).toEqual(newestFirst((_k, i) => i !== 1 && i !== 3));
    expect(await list({ source: "reddit" })).toEqual(newestFirst((_k, i) => i % 2 === 1));
    expect(await list({ source: "reddit", active: true })).toEqual(newestFirst((_k, i) => i === 5));
    expect(await allPages("list_keywords", { projectId, source: "x" }, owner.key, 2)).toEqual(newestFirst((_k, i) => i % 2 === 0));
  });

  it("answers a query boolean other than true or false with 400 naming active", async () => {
    for (const word of ["1", "yes", "TRUE", ""]) {
      const res = await h.api("GET", `/api/v1/keywords?projectId=${projectId}&active=${word}`, { key: owner.key });
      expect({ word, status: res.status, errors: res.body.errors }).toEqual({ word, status: 400, errors: [{ path: "active", message: "must be true or false" }] });
    }
  });

  it("answers list_keywords without a projectId with 400 naming projectId", async () => {
    const res = await h.call("list_keywords", {}, owner.key);
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((e) => e.path)).toEqual(["projectId"]);
  });
});

describe("a project the caller can no longer see", () => {
  const reads = (keywordId: string, projectId: string): Array<[string, Record<string, unknown>]> => [
    ["get_keyword", { keywordId }],
    ["list_keywords", { projectId }],
    ["list_keyword_groups", { projectId }],
  ];

  it("answers 404 on the project's keywords and groups to a member removed from it, once member.removed is delivered", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const editor = await joinProject(h, owner, projectId, "editor");
    const keyword = await createKeyword(h, editor, projectId);
    const groupId = await createKeywordGroup(h, editor, projectId);
    for (const [op, input] of reads(keyword.id, projectId)) expect({ op, status: (await h.call(op, input, editor.key)).status }).toEqual({ op, status: 200 });

    const delivered = membershipEventApplied(h, "member.removed", (d) => d.userId === editor.userId && d.projectId === projectId);
    const memberId = await memberIdOf(h, owner, projectId, editor.userId);
    expect((await h.call("remove_project_member", { projectId, memberId }, owner.key)).status).toBe(200);
    await delivered;

    const attempts: Array<[string, Record<string, unknown>]> = [
      ...reads(keyword.id, projectId),
      ["create_keyword", keywordInput(projectId)],
      ["update_keyword", { keywordId: keyword.id, value: "Still mine" }],
      ["delete_keyword", { keywordId: keyword.id }],
      ["create_keyword_group", { projectId, name: "Still mine" }],
      ["update_keyword_group", { groupId, name: "Still mine" }],
      ["delete_keyword_group", { groupId }],
    ];
    for (const [op, input] of attempts) {
      const res = await h.call(op, input, editor.key);
      expect({ op, status: res.status, code: res.body.code }).toEqual({ op, status: 404, code: "not_found" });
    }
    // Nothing changed on the way: the owner still sees the keyword and the group as they were.
    expect(dataOf<KeywordData>(await h.call("get_keyword", { keywordId: keyword.id }, owner.key))).toMatchObject({ value: keyword.value, active: true });
    expect((await groupsOf(owner, projectId)).map((g) => g.id)).toContain(groupId);
  });

  it("deactivates an archived project's keywords (freeing the allowance) and answers 404 on its keywords and groups", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const keyword = await createKeyword(h, owner, projectId);
    const groupId = await createKeywordGroup(h, owner, projectId);
    expect(((await h.call("get_usage", {}, owner.key)).body.data as UsageData).limits.keywords.used).toBe(1);
    const delivered = membershipEventApplied(h, "project.archived", (d) => d.projectId === projectId);
    const deactivated = busEvents(h, KEYWORD_EVENTS, 1, (e) => e.type === "keyword.deactivated" && e.data.keywordId === keyword.id);
    expect((await h.call("archive_project", { projectId }, owner.key)).status).toBe(200);
    await delivered;
    // The keyword service's own deactivation, not only the edge dropping the membership.
    await deactivated;
    expect(((await h.call("get_usage", {}, owner.key)).body.data as UsageData).limits.keywords.used).toBe(0);
    const attempts: Array<[string, Record<string, unknown>]> = [
      ...reads(keyword.id, projectId),
      ["create_keyword", keywordInput(projectId)],
      ["update_keyword", { keywordId: keyword.id, active: false }],
      ["create_keyword_group", { projectId, name: "Too late" }],
      ["delete_keyword_group", { groupId }],
    ];
    for (const [op, input] of attempts) {
      const res = await h.call(op, input, owner.key);
      expect({ op, status: res.status, code: res.body.code }).toEqual({ op, status: 404, code: "not_found" });
    }
  });
});
