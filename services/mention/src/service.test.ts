import { INTEGRATION_EVENTS, KEYWORD_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { presentMentionWithHistory } from "@earshot/contracts/resources";
import { type BatchHandler, type BusMessage, createGrpcClient, createInProcessBus, type EventBus, type GrpcClientHandle, newId, parseCloudEvent } from "@earshot/platform";
import { hostServiceForTest, publishedEvent, refusalOf, type ServiceUnderTest } from "@earshot/platform/testing";
import { commonV1, mentionV1 } from "@earshot/proto";
import { GROUPS } from "./consumers";
import { decodeMentionEvent, MENTION_EVENTS, type MentionCreated } from "./events";
import { mentionService } from "./service";

// The mention service as the all-in-one hosts it (embedded store in a temp data dir, real gRPC port),
// fed project, keyword and post.collected events through the in-process bus, whose publish resolves once
// every subscribed group has handled the message. What it stored is read back over gRPC (usage counts
// the stored mentions) and from the mention.created events its outbox relays onto the same bus.

const ana = "wsp_ana";
const ben = "wsp_ben";

const project = (data: Record<string, unknown>) => publishedEvent(PROJECT_EVENTS, "project.created", data);
const collected = (data: Record<string, unknown>) => publishedEvent(INTEGRATION_EVENTS, "post.collected", data);
const publish = (bus: EventBus, messages: BusMessage[]) => bus.publish(messages);

/** The mention.created events relayed so far, decoded, and a promise for the moment there are `n`. */
const watchCreated = async (bus: EventBus) => {
  const seen: MentionCreated[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  await bus.subscribe({ groupId: `test-${newId("evt")}`, topics: [MENTION_EVENTS.topic] }, async (m) => {
    const parsed = parseCloudEvent(m.value);
    const event = parsed && decodeMentionEvent(parsed);
    if (event?.type === "mention.created") seen.push(event.data);
    for (const w of waiters.filter((x) => seen.length >= x.n)) w.resolve();
  });
  return { seen, atLeast: (n: number) => (seen.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))) };
};

const keyword = (projectId: string, workspaceId: string, keywordId: string, value: string, more: Record<string, unknown> = {}) => ({
  keywordId,
  projectId,
  workspaceId,
  groupId: `kwg_${keywordId}`,
  value,
  sources: ["x", "reddit"],
  aliases: [],
  excludedTerms: [],
  filters: {},
  caseSensitive: false,
  active: true,
  ...more,
});

const postJson = (projectId: string, sourceId: string, text: string) => ({
  projectId,
  source: "x",
  sourceId,
  url: `https://x.com/someone/status/${sourceId}`,
  text,
  author: { id: "u1", handle: "someone", name: "Someone" },
  publishedAt: "2026-11-20T10:00:00Z",
  collectedAt: "2026-11-20T10:05:00Z",
});

describe("mention service over gRPC and the bus", () => {
  const acme = "prj_01JMENTIONSERVICE00000000A";
  const globex = "prj_01JMENTIONSERVICE00000000B";
  let hosted: ServiceUnderTest;
  let mention: GrpcClientHandle<mentionV1.MentionServiceClient>;
  let created: Awaited<ReturnType<typeof watchCreated>>;
  const usage = async (workspaceId: string) => Number((await mention.client.getWorkspaceUsage({ workspaceId })).usage?.counts.mentionsThisMonth);

  beforeAll(async () => {
    hosted = await hostServiceForTest(mentionService);
    mention = createGrpcClient(mentionV1.MentionServiceClient, hosted.address);
    created = await watchCreated(hosted.bus);
    await publish(hosted.bus, [
      project({ projectId: acme, workspaceId: ana, ownerId: "usr_ana", name: "Acme", digestTimezone: "UTC" }),
      project({ projectId: globex, workspaceId: ben, ownerId: "usr_ben", name: "Globex", digestTimezone: "UTC" }),
    ]);
    await publish(hosted.bus, [
      publishedEvent(KEYWORD_EVENTS, "keyword_group.created", { groupId: "kwg_kw_rocket", projectId: acme, workspaceId: ana, name: "Space", order: 2 }),
      publishedEvent(KEYWORD_EVENTS, "keyword.created", keyword(acme, ana, "kw_rocket", "rocket")),
      publishedEvent(KEYWORD_EVENTS, "keyword.created", keyword(acme, ana, "kw_launch", "launch")),
      publishedEvent(KEYWORD_EVENTS, "keyword.created", keyword(globex, ben, "kw_globex_rocket", "rocket")),
    ]);
  });

  afterAll(async () => {
    mention.close();
    await hosted.stop();
  });

  it("turns a collected post matching two keywords of one project and one of another into one mention in each", async () => {
    await publish(hosted.bus, [collected(postJson(acme, "100", "The rocket launch is today")), collected(postJson(globex, "100", "The rocket launch is today"))]);
    expect([await usage(ana), await usage(ben)]).toEqual([1, 1]);
    await created.atLeast(2);
    const byProject = Object.fromEntries(created.seen.map((d) => [d.projectId, d]));
    // The event's mention is the mention as get_mention presents it.
    const acmeMention = presentMentionWithHistory(byProject[acme]?.mention);
    expect(new Set(acmeMention.keywordIds)).toEqual(new Set(["kw_rocket", "kw_launch"]));
    expect(byProject[acme]?.workspaceId).toBe(ana);
    expect(acmeMention).toMatchObject({
      projectId: acme,
      source: "x",
      sourceId: "100",
      text: "The rocket launch is today",
      author: { id: "u1", handle: "someone", name: "Someone" },
      sentiment: { label: "neutral", method: "lexicon" },
      publishedAt: "2026-11-20T10:00:00.000Z",
      status: "open",
      categoryId: null,
      history: [],
    });
    // Names as the keyword events last told the service: a group it never heard of has none.
    expect(byProject[acme]?.keywords).toEqual(
      expect.arrayContaining([
        { keywordId: "kw_rocket", value: "rocket", groupId: "kwg_kw_rocket" },
        { keywordId: "kw_launch", value: "launch", groupId: "kwg_kw_launch" },
      ]),
    );
    expect(byProject[acme]?.groups).toEqual(expect.arrayContaining([{ groupId: "kwg_kw_rocket", name: "Space" }, { groupId: "kwg_kw_launch", name: "" }]));
    expect(acmeMention.matches.map((m) => m.term).sort()).toEqual(["launch", "rocket"]);
    expect(byProject[globex]?.workspaceId).toBe(ben);
    expect(presentMentionWithHistory(byProject[globex]?.mention).keywordIds).toEqual(["kw_globex_rocket"]);
  });

  it("makes no second mention from the same event delivered twice, nor from the same post collected again", async () => {
    const event = collected(postJson(acme, "200", "rocket"));
    await publish(hosted.bus, [event]);
    const after = await usage(ana);
    await publish(hosted.bus, [event]);
    // The same post, collected again: a new event id, other metrics.
    await publish(hosted.bus, [collected({ ...postJson(acme, "200", "rocket"), metrics: { likes: "9", replies: "0", shares: "0", views: "99" } })]);
    expect(await usage(ana)).toBe(after);
  });

  it("stops matching a keyword once its deactivation arrives", async () => {
    await publish(hosted.bus, [publishedEvent(KEYWORD_EVENTS, "keyword.deactivated", keyword(globex, ben, "kw_globex_rocket", "rocket", { active: false }))]);
    const before = await usage(ben);
    await publish(hosted.bus, [collected(postJson(globex, "300", "rocket"))]);
    expect(await usage(ben)).toBe(before);
    const res = await mention.client.ingestPosts({ posts: [{ ...protoPost(globex, "301", "rocket") }] });
    expect(res).toMatchObject({ created: 0, unmatched: 1 });
  });

  const protoPost = (projectId: string, sourceId: string, text: string): mentionV1.Post => ({
    projectId,
    source: commonV1.Source.SOURCE_REDDIT,
    sourceId,
    url: `https://www.reddit.com/r/space/comments/${sourceId}/`,
    title: "News",
    text,
    author: { id: "t2_1", handle: "spacefan", name: "Fan", followers: "12" },
    publishedAt: new Date("2026-11-21T08:00:00Z"),
    lang: "en",
    metrics: { likes: "3", replies: "1", shares: "0", views: "0" },
    collectedAt: new Date("2026-11-21T08:01:00Z"),
    subreddit: "space",
  });

  it("ingests posts over IngestPosts: counts each outcome and names the refused posts by index and field", async () => {
    const before = await usage(ana);
    const res = await mention.client.ingestPosts({
      posts: [
        protoPost(acme, "400", "rocket news"),
        protoPost(acme, "400", "rocket news"),
        protoPost(acme, "401", "nothing"),
        protoPost("prj_unknown", "402", "rocket"),
        { ...protoPost(acme, "403", "rocket"), source: commonV1.Source.SOURCE_UNSPECIFIED },
        { ...protoPost(acme, "404", "rocket"), publishedAt: undefined },
      ],
    });
    expect(res).toEqual({
      created: 1,
      duplicates: 1,
      unmatched: 1,
      skipped: 1,
      refused: [
        { index: 4, problems: [{ path: "source", message: "must be one of x, reddit, youtube, linkedin, hackernews, bluesky, rss, github" }] },
        { index: 5, problems: [{ path: "publishedAt", message: "is required" }] },
      ],
    });
    expect(await usage(ana)).toBe(before + 1);
  });

  it("refuses more than 1,000 posts in one call, naming posts", async () => {
    const err = await refusalOf(mention.client.ingestPosts({ posts: Array.from({ length: 1001 }, (_, i) => protoPost(acme, `big-${i}`, "rocket")) }));
    expect(err).toMatchObject({ code: "validation_failed", errors: [{ path: "posts" }] });
    expect((await refusalOf(mention.client.getWorkspaceUsage({ workspaceId: "" }))).code).toBe("validation_failed");
  });
});

describe("mention service when the process dies after storing a batch and before acknowledging it", () => {
  it("delivers the batch again and makes no second mention", async () => {
    const bus = createInProcessBus({ wait: async () => undefined });
    // The posts group's acknowledgement is lost once, after its handler finished: as if the process died
    // right after the commit. The bus then hands the same events to the group again.
    let lost = 0;
    const dying: EventBus = Object.assign(Object.create(bus) as EventBus, {
      subscribeBatches: (options: Parameters<EventBus["subscribeBatches"]>[0], handler: BatchHandler) =>
        bus.subscribeBatches(options, async (messages) => {
          await handler(messages);
          if (options.groupId === GROUPS.posts && lost === 0) {
            lost += 1;
            throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
          }
        }),
    });
    const hosted = await hostServiceForTest(mentionService, { bus: dying });
    const mention = createGrpcClient(mentionV1.MentionServiceClient, hosted.address);
    try {
      const projectId = "prj_01JMENTIONCRASH0000000000A";
      await publish(bus, [project({ projectId, workspaceId: ana, ownerId: "usr_ana", name: "Acme" })]);
      await publish(bus, [publishedEvent(KEYWORD_EVENTS, "keyword.created", keyword(projectId, ana, "kw_acme", "acme"))]);
      await publish(bus, [1, 2, 3].map((i) => collected(postJson(projectId, `p${i}`, "acme"))));
      expect(lost).toBe(1);
      expect(Number((await mention.client.getWorkspaceUsage({ workspaceId: ana })).usage?.counts.mentionsThisMonth)).toBe(3);
    } finally {
      mention.close();
      await hosted.stop();
      await bus.close();
    }
  });
});
