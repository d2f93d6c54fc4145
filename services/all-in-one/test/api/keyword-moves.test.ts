import { waitFor } from "@earshot/platform/testing";
import { parse } from "csv-parse/sync";
import { simpleParser } from "mailparser";
import { type Actor, type ApiResponse, type Harness, startHarness } from "./harness";
import { createKeyword, createKeywordGroup, createProject, ingestPosts, listAllMentions, postFor } from "./world";

// Group membership follows the keyword, through the real services: a keyword created in the wrong group
// and moved takes its mentions, those collected before the move too, to its new group in the list filter,
// a saved view, share of voice, analytics by group, the export, the public dashboard and an alert rule's
// digest; a deleted group's inactive keywords take theirs to My brand.

let h: Harness;
let owner: Actor;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newActor();
}, 60_000);
afterAll(async () => h?.stop());

const dataOf = <T>(res: ApiResponse): T => {
  if (res.status >= 300) throw new Error(`expected a success, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as T;
};

const defaultGroups = async (projectId: string) => {
  const groups = dataOf<Array<{ id: string; name: string }>>(await h.call("list_keyword_groups", { projectId }, owner.key));
  const id = (name: string) => groups.find((g) => g.name === name)!.id;
  return { myBrand: id("My brand"), competitors: id("Competitors") };
};

const textsIn = async (projectId: string, groupId: string) => (await listAllMentions(h, owner, projectId, { groupId: [groupId] })).map((m) => m.text).sort();

it("counts a moved keyword's mentions, old and new, in its new group in lists, views, share of voice, analytics, the export, the public dashboard and a digest", async () => {
  const projectId = await createProject(h, owner);
  const groups = await defaultGroups(projectId);
  const rule = await h.call("create_alert", { projectId, name: "Rivals", digest: { enabled: true, hour: 8 }, filters: { groupIds: [groups.competitors] } }, owner.key);
  expect(rule.status).toBe(201);
  await createKeyword(h, owner, projectId, { value: "Acme" });
  // The competitor, created without a group: it lands in My brand.
  const globex = await createKeyword(h, owner, projectId, { value: "Globex" });
  expect(globex.groupId).toBe(groups.myBrand);
  await ingestPosts(h, ["Acme shipped", "Globex shipped", "Globex broke"].map((text) => postFor(projectId, { text })));
  const analytics = async (groupBy?: string) =>
    dataOf<{ totals: Record<string, number>; shareOfVoice: { myBrand: number; competitors: number; myBrandShare: number } }>(
      await h.call("get_mention_analytics", { projectId, ...(groupBy ? { groupBy } : {}) }, owner.key),
    );
  expect((await analytics()).shareOfVoice).toEqual({ myBrand: 3, competitors: 0, myBrandShare: 1 });

  const moved = await h.call("update_keyword", { keywordId: globex.id, groupId: groups.competitors }, owner.key);
  expect(moved.status).toBe(200);
  await waitFor(async () => (await textsIn(projectId, groups.competitors)).length === 2, 10_000);

  await ingestPosts(h, [postFor(projectId, { text: "Globex again" })]);
  expect(await textsIn(projectId, groups.competitors)).toEqual(["Globex again", "Globex broke", "Globex shipped"]);
  expect(await textsIn(projectId, groups.myBrand)).toEqual(["Acme shipped"]);
  expect((await analytics()).shareOfVoice).toEqual({ myBrand: 1, competitors: 3, myBrandShare: 0.25 });
  expect((await analytics("group")).totals).toEqual({ [groups.myBrand]: 1, [groups.competitors]: 3 });

  const csv = await h.call("export_mentions", { projectId, format: "csv" }, owner.key);
  const [header, ...rows] = parse(csv.text) as string[][];
  const col = (name: string) => header!.indexOf(name);
  const byText = Object.fromEntries(rows.map((r) => [r[col("text")], r[col("groupNames")]]));
  expect(byText).toEqual({ "Acme shipped": "My brand", "Globex shipped": "Competitors", "Globex broke": "Competitors", "Globex again": "Competitors" });

  const view = dataOf<{ id: string }>(await h.call("create_mention_view", { projectId, name: "Rivals", filters: { groupId: [groups.competitors] } }, owner.key));
  expect((await listAllMentions(h, owner, projectId, { viewId: view.id })).map((m) => m.text).sort()).toEqual(["Globex again", "Globex broke", "Globex shipped"]);

  // The public dashboard counts by group name.
  const set = await h.call("set_public_dashboard", { projectId, enabled: true }, owner.key);
  const shareUrl = (set.body.data as { publicDashboard: { shareUrl: string } }).publicDashboard.shareUrl;
  await waitFor(async () => (await fetch(shareUrl)).status === 200, 10_000);
  const dashboard = (await (await fetch(`${shareUrl}/analytics.json`)).json()) as { data: { byGroup: Array<{ name: string; count: number }> } };
  expect(dashboard.data.byGroup.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
    { name: "Competitors", count: 3 },
    { name: "My brand", count: 1 },
  ]);

  // The digest service keeps its own copies of the mentions: its rule about Competitors counts the three
  // once they follow too (each try is a manual send of the last 24 hours).
  const subjects = async () => Promise.all(h.mail.filter((m) => m.to.includes(owner.email) && m.raw.includes("Rivals for ")).map(async (m) => (await simpleParser(m.raw)).subject ?? ""));
  await waitFor(async () => {
    await h.digest.sendDigest({ projectId, localDate: "" });
    return (await subjects()).some((s) => /^\[manual send\] Rivals for .+: 3 mentions on /.test(s));
  }, 10_000, 200);
});

it("moves a deleted group's inactive keywords' mentions to My brand", async () => {
  const projectId = await createProject(h, owner);
  const groups = await defaultGroups(projectId);
  const press = await createKeywordGroup(h, owner, projectId, "Press");
  const initech = await createKeyword(h, owner, projectId, { value: "Initech", groupId: press });
  await ingestPosts(h, [postFor(projectId, { text: "Initech news" })]);
  expect(await textsIn(projectId, press)).toEqual(["Initech news"]);

  expect((await h.call("delete_keyword_group", { groupId: press }, owner.key)).status).toBe(409);
  expect((await h.call("delete_keyword", { keywordId: initech.id }, owner.key)).status).toBe(200);
  expect((await h.call("delete_keyword_group", { groupId: press }, owner.key)).status).toBe(200);
  await waitFor(async () => (await textsIn(projectId, groups.myBrand)).length === 1, 10_000);
  expect(await textsIn(projectId, press)).toEqual([]);
});
