import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { waitFor } from "../../../platform/src/testing/tmp";
import { type Harness, startHarness } from "./harness";
import { buildWorld, createKeyword, createProject, ingestPosts, type KeywordData, postFor, type World } from "./world";

// Stories through a running Earshot: the same article shared on X and Reddit with other tracking, and a
// near-identical text on YouTube and LinkedIn, read back as `story` on every mention and once per story
// with collapse=story on list_mentions (REST and MCP), the export and the change feed; never across projects.

let h: Harness;
let w: World;
let keyword: KeywordData;
let otherProject: string;
beforeAll(async () => {
  h = await startHarness();
  w = await buildWorld(h);
  keyword = await createKeyword(h, w.owner, w.projectId, { value: "Quillbyte", sources: ["x", "reddit", "youtube", "linkedin"] });
  otherProject = await createProject(h, w.owner);
  await createKeyword(h, w.owner, otherProject, { value: "Quillbyte", sources: ["x", "reddit", "youtube", "linkedin"] });
  const article = "https://www.techdaily.example/2026/quillbyte-series-b";
  const text = `${"Quillbyte"} raised a series B to build offline sync for its notes app and the whole team is hiring in Lisbon`;
  await ingestPosts(h, [
    postFor(w.projectId, { sourceId: "x-1", text: `Big day for ${keyword.value} ${article}?utm_source=twitter&utm_medium=social`, publishedAt: new Date(Date.now() - 50_000) }),
    postFor(w.projectId, { source: "reddit", sourceId: "r-1", text: `Thoughts on ${keyword.value}? http://techdaily.example/2026/quillbyte-series-b/`, publishedAt: new Date(Date.now() - 40_000) }),
    postFor(w.projectId, { source: "youtube", sourceId: "yt-1", text, publishedAt: new Date(Date.now() - 30_000) }),
    postFor(w.projectId, { source: "linkedin", sourceId: "li-1", text: `RT @quillbyte: ${text} #notes #hiring`, publishedAt: new Date(Date.now() - 20_000) }),
    postFor(w.projectId, { sourceId: "x-2", text: `${keyword.value} review: search is great but battery drain is real`, publishedAt: new Date(Date.now() - 10_000) }),
    postFor(otherProject, { sourceId: "x-1", text: `${keyword.value} news ${article}`, publishedAt: new Date(Date.now() - 50_000) }),
  ]);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

interface Story {
  id: string;
  size: number;
  firstMentionId: string;
}
interface Row {
  id: string;
  sourceId: string;
  story: Story | null;
}

const list = async (projectId: string, input: Record<string, unknown> = {}, key = w.viewer.key) => {
  const res = await h.call("list_mentions", { projectId, ...input }, key);
  expect(res.status).toBe(200);
  return res.body.data as Row[];
};

describe("stories", () => {
  it("puts the copies of one story under one story on every mention, never across projects", async () => {
    const rows = await list(w.projectId);
    const by = new Map(rows.map((r) => [r.sourceId, r]));
    expect(by.get("r-1")!.story).toEqual({ id: by.get("x-1")!.story!.id, size: 2, firstMentionId: by.get("x-1")!.id });
    expect(by.get("li-1")!.story).toEqual({ id: by.get("yt-1")!.story!.id, size: 2, firstMentionId: by.get("yt-1")!.id });
    expect(by.get("x-2")!.story).toMatchObject({ size: 1, firstMentionId: by.get("x-2")!.id });
    const [theirs] = await list(otherProject, {}, w.owner.key);
    expect(theirs!.story).toMatchObject({ size: 1, firstMentionId: theirs!.id });
  });

  it("collapse=story lists each story once, by its first mention, over REST and MCP", async () => {
    const rows = await list(w.projectId, { collapse: "story" });
    expect(rows.map((r) => [r.sourceId, r.story!.size])).toEqual([["x-2", 1], ["yt-1", 2], ["x-1", 2]]);
    const client = new Client({ name: "stories-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${w.viewer.key}` } } }));
    try {
      const result = (await client.callTool({ name: "list_mentions", arguments: { projectId: w.projectId, collapse: "story" } })) as { structuredContent?: { data: Row[] } };
      expect(result.structuredContent!.data.map((r) => r.sourceId)).toEqual(["x-2", "yt-1", "x-1"]);
    } finally {
      await client.close();
    }
  });

  it("the export presents each story as the list does, and collapse=story exports each story once", async () => {
    const lines = async (input: Record<string, unknown>) => {
      const res = await h.api("GET", h.pathOf("export_mentions", { projectId: w.projectId, format: "ndjson", ...input }), { key: w.viewer.key });
      expect(res.status).toBe(200);
      return res.text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Row);
    };
    const story = (rows: Row[]) => rows.map((r) => [r.sourceId, r.story]);
    expect(story(await lines({}))).toEqual(story(await list(w.projectId)));
    expect(story(await lines({ collapse: "story" }))).toEqual(story(await list(w.projectId, { collapse: "story" })));
    expect((await lines({ collapse: "story" })).map((r) => r.sourceId)).toEqual(["x-2", "yt-1", "x-1"]);
  });

  it("collapse=story on the change feed reads each story once", async () => {
    const res = await h.call("list_mention_changes", { projectId: w.projectId, collapse: "story" }, w.viewer.key);
    expect(res.status).toBe(200);
    const rows = (res.body.data as Array<{ mention?: Row } & Row>).map((c) => c.mention ?? c);
    expect(rows.map((r) => r.sourceId).sort()).toEqual(["x-1", "x-2", "yt-1"]);
  });

  it("the public dashboard shows a story once, with \"and N more\"", async () => {
    const on = await h.call("set_public_dashboard", { projectId: w.projectId, enabled: true }, w.owner.key);
    expect(on.status).toBe(200);
    const url = (on.body.data as { publicDashboard: { shareUrl: string } }).publicDashboard.shareUrl;
    let html = "";
    // The mention service hears of the dashboard from the project service's event: the page serves once it has.
    await waitFor(async () => {
      const res = await fetch(url);
      html = await res.text();
      return res.status === 200;
    }, 10_000);
    expect(html.match(/and 1 more mention of this story/g)).toHaveLength(2);
    expect(html).not.toContain("Thoughts on");
    expect(html).not.toContain("RT @quillbyte");
  });

  it("refuses an unknown collapse with 400 naming the field", async () => {
    for (const op of ["list_mentions", "list_mention_changes", "export_mentions"]) {
      const res = await h.call(op, { projectId: w.projectId, collapse: "thread" }, w.viewer.key);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain("collapse");
    }
  });
});
