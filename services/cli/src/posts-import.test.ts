import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mentionService } from "@earshot/mention";
import { createGrpcClient, type GrpcClientHandle, newId } from "@earshot/platform";
import { KEYWORD_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { hostServiceForTest, publishedEvent, type ServiceUnderTest } from "@earshot/platform/testing";
import { mentionV1 } from "@earshot/proto";
import { runCli } from "./commands";
import { EXAMPLE_LINES } from "./post-format";

// `earshot posts import` against a real mention service, hosted in-process on port 0 and reached over
// gRPC, which knows the project and its keyword from events published on its bus.

describe("earshot posts import", () => {
  let hosted: ServiceUnderTest;
  let mention: GrpcClientHandle<mentionV1.MentionServiceClient>;
  const projectId = newId("prj");
  const workspaceId = "wsp_import";

  beforeAll(async () => {
    hosted = await hostServiceForTest(mentionService);
    await writeFile(join(hosted.dataDir, "services.json"), JSON.stringify({ account: "127.0.0.1:1", mention: hosted.address }));
    mention = createGrpcClient(mentionV1.MentionServiceClient, hosted.address);
    await hosted.bus.publish([publishedEvent(PROJECT_EVENTS, "project.created", { projectId, workspaceId, ownerId: "usr_1", name: "Acme", digestTimezone: "UTC" })]);
    await hosted.bus.publish([publishedEvent(KEYWORD_EVENTS, "keyword.created", { keywordId: "kw_acme", projectId, groupId: "kwg_1", value: "acme", sources: ["x", "reddit"], active: true })]);
  });
  afterAll(async () => {
    mention.close();
    await hosted.stop();
  });

  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { EARSHOT_DATA_DIR: hosted.dataDir }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err };
  };
  const mentions = async () => Number((await mention.client.getWorkspaceUsage({ workspaceId })).usage?.counts.mentionsThisMonth);
  const fileWith = async (name: string, lines: string[]) => {
    const file = join(hosted.dataDir, name);
    await writeFile(file, `${lines.join("\n")}\n`);
    return file;
  };
  const post = (sourceId: string, text: string, more: Record<string, unknown> = {}) =>
    JSON.stringify({
      // Ignored: the posts go to the project named on the command line.
      projectId: newId("prj"),
      source: "x",
      sourceId,
      url: `https://x.com/a/status/${sourceId}`,
      text,
      author: { id: "1", handle: "@ana", name: "Ana", followers: 120 },
      publishedAt: "2026-11-20T09:00:00Z",
      metrics: { likes: 3, replies: 0, shares: 1, views: 40 },
      ...more,
    });

  it("imports good lines, counts duplicates and unmatched posts, and reports each bad line by number with exit code 1", async () => {
    const file = await fileWith("mixed.jsonl", [
      post("1", "acme launches"), // 1: created
      post("2", "nothing to see"), // 2: unmatched
      "{not json", // 3: bad
      "", // 4: blank, not counted
      post("1", "acme launches, again"), // 5: duplicate of line 1
      post("3", "acme", { source: "myspace" }), // 6: bad (refused by the service)
      post("4", "acme", { author: { id: "1", handle: "ana", followers: -1 } }), // 7: bad (a count below 0)
      post("5", "Acme on Reddit", { source: "reddit", url: "https://www.reddit.com/r/acme/comments/5/", publishedAt: "2026-11-20T09:00:00+01:00" }), // 8: created
      "[1, 2]", // 9: bad
    ]);
    const before = await mentions();
    const res = await run("posts", "import", "--project", projectId, "--file", file, "--batch-size", "2");
    expect(res.code).toBe(1);
    expect(res.err).toEqual([
      expect.stringMatching(/^line 3: not JSON \(.+\)$/),
      "line 6: source: must be one of x, reddit, youtube, linkedin, hackernews, bluesky, rss, github",
      "line 7: author.followers: must not be negative",
      "line 9: post: must be an object",
    ]);
    expect(res.out).toBe(
      [`Read 8 lines from ${file} for ${projectId}: 4 posts, 4 bad lines.`, "created 2, duplicates 1, unmatched 1, skipped 0 (project paused, archived or unknown)"].join("\n"),
    );
    expect(await mentions()).toBe(before + 2);
  });

  it("names every bad field of a line at once: three fields left out are three problems on one report", async () => {
    const { sourceId: _id, url: _url, publishedAt: _at, ...rest } = JSON.parse(post("m1", "acme")) as Record<string, unknown>;
    const file = await fileWith("fields-left-out.jsonl", [JSON.stringify(rest), post("m2", "acme", { author: "ana", title: 7, lang: null })]);
    const res = await run("posts", "import", "--project", projectId, "--file", file);
    expect(res.code).toBe(1);
    expect(res.err).toEqual(["line 1: sourceId: is required; url: is required; publishedAt: is required", "line 2: title: must be a string; author: must be an object"]);
    expect(res.out).toContain(": 0 posts, 2 bad lines.");
  });

  it("takes the README's example line of every source, and leaves null fields out", async () => {
    const file = await fileWith("examples.jsonl", [...EXAMPLE_LINES, post("n1", "acme", { title: null, collectedAt: null, author: { id: "1", handle: "ana", url: null } })]);
    const res = await run("posts", "import", "--project", projectId, "--file", file);
    expect(res).toMatchObject({ code: 0, err: [] });
    expect(res.out).toContain(`Read ${EXAMPLE_LINES.length + 1} lines`);
    expect(res.out).toContain(": 5 posts, 0 bad lines.");
  });

  it("exits 0 when every line is a post, and counts a second import as duplicates", async () => {
    const file = await fileWith("clean.jsonl", Array.from({ length: 7 }, (_, i) => post(`clean-${i}`, "acme")));
    expect((await run("posts", "import", "--project", projectId, "--file", file)).out).toContain("created 7, duplicates 0, unmatched 0, skipped 0");
    const again = await run("posts", "import", "--project", projectId, "--file", file, "--batch-size", "3");
    expect(again).toMatchObject({ code: 0, err: [] });
    expect(again.out).toContain("created 0, duplicates 7,");
  });

  it("counts the posts of a project the service does not know as skipped", async () => {
    const file = await fileWith("elsewhere.jsonl", [post("x1", "acme")]);
    const res = await run("posts", "import", "--project", newId("prj"), "--file", file);
    expect(res.out).toContain("created 0, duplicates 0, unmatched 0, skipped 1");
  });

  it("answers bad usage with exit code 64 before reading or calling anything", async () => {
    const file = await fileWith("one.jsonl", [post("u1", "acme")]);
    const usage = async (...argv: string[]) => {
      const res = await run("posts", "import", ...argv);
      expect(res.code).toBe(64);
      return res.err.join("\n");
    };
    expect(await usage("--file", file)).toContain("--project is required");
    expect(await usage("--project", "acme", "--file", file)).toContain("--project must be a project id");
    expect(await usage("--project", projectId)).toContain("--file is required");
    expect(await usage("--project", projectId, "--file", join(hosted.dataDir, "missing.jsonl"))).toContain("cannot read");
    expect(await usage("--project", projectId, "--file", file, "--batch-size", "1001")).toContain("--batch-size must be a whole number from 1 to 1000");
    expect(await usage("--project", projectId, "--file", file, "--account-addr", "127.0.0.1:1")).toContain("--account-addr does not apply to posts import");
    expect(await usage("--project", projectId, "--file", file, "--mention-addr", "nowhere")).toContain("--mention-addr must be host:port");
  });

  it("finds the mention service by --mention-addr and EARSHOT_MENTION_GRPC_ADDR too", async () => {
    const file = await fileWith("addr.jsonl", [post("addr-1", "acme")]);
    const argv = ["posts", "import", "--project", projectId, "--file", file];
    const quiet = { out: () => undefined, err: () => undefined };
    expect(await runCli([...argv, "--mention-addr", hosted.address], { EARSHOT_DATA_DIR: "/nonexistent" }, quiet)).toBe(0);
    expect(await runCli(argv, { EARSHOT_DATA_DIR: "/nonexistent", EARSHOT_MENTION_GRPC_ADDR: hosted.address }, quiet)).toBe(0);
  });
});
