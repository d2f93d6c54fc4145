import { createLogger } from "@earshot/platform";
import { integrationSettingsOf } from "../config";
import type { CollectorDeps } from "./collector-deps";
import { createGithubCollector } from "./github";
import { type FakeDiscussion, type FakeIssue, type GithubFake, startGithubFake } from "./github-fake";
import { postProblems } from "./post-check-test-support";
import { ProviderRateLimited, ProviderRejected, ProviderUnavailable } from "./provider-errors";
import { ProviderHttp } from "./provider-http";
import { keyword, seededRandom, TEST_NOW } from "./query-test-support";

const iso = (msAgo: number) => new Date(Math.floor((TEST_NOW - msAgo) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
let nextId = 1;
const issue = (title: string, msAgo: number, pr = false): FakeIssue => {
  const id = nextId++;
  return {
    id: 5000 + id,
    number: id,
    title,
    body: `${title} body`,
    html_url: `https://github.com/acme/app/${pr ? "pull" : "issues"}/${id}`,
    user: { login: "octocat", id: 583231, html_url: "https://github.com/octocat" },
    created_at: iso(msAgo),
    ...(pr ? { pull_request: { url: `https://api.github.com/repos/acme/app/pulls/${id}` } } : {}),
  };
};

const discussion = (title: string, msAgo: number, author: FakeDiscussion["author"] = { login: "hubot", url: "https://github.com/hubot" }): FakeDiscussion => {
  const n = nextId++;
  return { id: `D_kwDOAcme${n}`, url: `https://github.com/acme/app/discussions/${n}`, title, body: `${title} body`, createdAt: iso(msAgo), author };
};

describe("GitHub collector", () => {
  let fake: GithubFake;
  const depsOf = (settings: Record<string, string> = {}): CollectorDeps => ({
    settings: integrationSettingsOf({ EARSHOT_GITHUB_API_URL: fake.url, EARSHOT_POLL_INTERVAL_SECONDS: "300", ...settings }),
    http: new ProviderHttp({ retries: 1, retryBaseMs: 1, random: seededRandom(), now: () => TEST_NOW }),
    quota: { take: () => Promise.reject(new Error("unused")), left: () => Promise.reject(new Error("unused")) },
    logger: createLogger("github-test", { level: "silent" }),
    now: () => new Date(TEST_NOW),
  });
  beforeAll(async () => {
    fake = await startGithubFake();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.items.length = 0;
    fake.requests.length = 0;
    fake.failures.length = 0;
    fake.window = { remaining: 1000, reset: Math.floor(TEST_NOW / 1000) + 60 };
    fake.discussions.length = 0;
    fake.graphqlRequests.length = 0;
    fake.graphqlErrors.length = 0;
    fake.graphqlWindow = { remaining: 5000, resetAt: new Date(TEST_NOW + 3_600_000).toISOString() };
  });
  const input = (cursor?: unknown, more: { lookbackMs?: number; now?: number } = {}) => ({
    projectId: "prj_test",
    keywords: [keyword("Acme", { sources: ["github"] })],
    cursor,
    now: new Date(more.now ?? TEST_NOW),
    signal: new AbortController().signal,
    ...(more.lookbackMs ? { lookbackMs: more.lookbackMs } : {}),
  });
  const ids = (o: { posts: Array<{ sourceId: string }> }) => o.posts.map((p) => p.sourceId).sort();

  it("finds issues and pull requests and maps them to Posts: html_url, the author's login; the token when set", async () => {
    const i = issue("Acme crashes on start", 60_000);
    const p = issue("Fix Acme crash", 30_000, true);
    fake.items.push(i, p, issue("unrelated", 10_000));
    const out = await createGithubCollector(depsOf({ EARSHOT_GITHUB_TOKEN: "ghp_test" })).poll(input());
    expect(ids(out)).toEqual([String(i.id), String(p.id)].sort());
    expect(out.posts.find((x) => x.sourceId === String(i.id))).toEqual({
      source: "github",
      sourceId: String(i.id),
      url: i.html_url,
      title: "Acme crashes on start",
      text: "Acme crashes on start body",
      author: { id: "583231", handle: "octocat", name: "octocat", url: "https://github.com/octocat" },
      publishedAt: new Date(i.created_at).toISOString(),
    });
    for (const x of out.posts) expect(postProblems(x)).toEqual([]);
    expect(fake.requests.map((r) => r.q.get("q"))).toEqual([`"acme" is:issue created:>${iso(300_000)}`, `"acme" is:pr created:>${iso(300_000)}`]);
    expect(Object.fromEntries(fake.requests[0]!.q)).toMatchObject({ sort: "created", order: "desc", per_page: "100", page: "1" });
    expect(fake.requests[0]!.authorization).toBe("Bearer ghp_test");
    expect(out.quotaLeft).toBe(998);
  });

  it("searches a new keyword 24 h back through every page, and a restart from the cursor finds only new items, once", async () => {
    for (let k = 0; k < 130; k++) fake.items.push(issue(`Acme report ${k}`, 3_600_000 + k * 1000));
    fake.items.push(issue("Acme too old", 86_400_000 + 60_000));
    fake.discussions.push(discussion("Acme discussion nobody reads without a token", 60_000));
    const first = await createGithubCollector(depsOf()).poll(input(undefined, { lookbackMs: 86_400_000 }));
    expect(first.posts).toHaveLength(130);
    expect(fake.requests[0]!.authorization).toBeUndefined();
    // GraphQL serves signed-in callers only: without a token no discussion search is sent.
    expect(fake.graphqlRequests).toEqual([]);
    const later = issue("Acme later", -5_000);
    fake.items.push(later);
    const cursor = JSON.parse(JSON.stringify(first.cursor)) as unknown;
    const second = await createGithubCollector(depsOf()).poll(input(cursor, { now: TEST_NOW + 10_000 }));
    expect(ids(second)).toEqual([String(later.id)]);
    expect(ids(await createGithubCollector(depsOf()).poll(input(second.cursor, { now: TEST_NOW + 20_000 })))).toEqual([]);
  });

  it("stops at X-RateLimit-Remaining 0 until X-RateLimit-Reset, and backs off on a 403 rate limit, a 429's Retry-After and 5xx", async () => {
    fake.window.remaining = 1;
    const out = await createGithubCollector(depsOf()).poll(input());
    expect(fake.requests).toHaveLength(1);
    expect(out.backoffUntil?.getTime()).toBe((Math.floor(TEST_NOW / 1000) + 60) * 1000);
    const spent = await createGithubCollector(depsOf()).poll(input()).catch((e: unknown) => e);
    expect(spent).toBeInstanceOf(ProviderRateLimited);
    expect((spent as ProviderRateLimited).retryAt.getTime()).toBe((Math.floor(TEST_NOW / 1000) + 60) * 1000);
    fake.window.remaining = 1000;
    fake.failures.push({ status: 429, retryAfter: "90" });
    const limited = await createGithubCollector(depsOf()).poll(input()).catch((e: unknown) => e);
    expect((limited as ProviderRateLimited).retryAt.getTime()).toBe(TEST_NOW + 90_000);
    fake.failures.push({ status: 502 }, { status: 502 });
    expect(await createGithubCollector(depsOf()).poll(input()).catch((e: unknown) => e)).toBeInstanceOf(ProviderUnavailable);
  });

  it("with a token searches discussions through GraphQL too: every page by end cursor, mapped by node id, resumed from the newest", async () => {
    for (let k = 0; k < 60; k++) fake.discussions.push(discussion(`Acme idea ${k}`, 3_600_000 + k * 1000));
    const ghost = discussion("Acme question from a deleted account", 120_000, null);
    fake.discussions.push(ghost, discussion("something else", 60_000), discussion("Acme too old", 86_400_000 + 60_000));
    const tokened = depsOf({ EARSHOT_GITHUB_TOKEN: "ghp_test" });
    const first = await createGithubCollector(tokened).poll(input(undefined, { lookbackMs: 86_400_000 }));
    expect(first.posts).toHaveLength(61);
    expect(first.posts.find((p) => p.sourceId === ghost.id)).toEqual({
      source: "github",
      sourceId: ghost.id,
      url: ghost.url,
      title: ghost.title,
      text: `${ghost.title} body`,
      author: { id: "ghost", handle: "ghost", name: "ghost", url: "https://github.com/ghost" },
      publishedAt: new Date(ghost.createdAt).toISOString(),
    });
    for (const x of first.posts) expect(postProblems(x)).toEqual([]);
    expect(fake.graphqlRequests.map((r) => [r.q, r.first, r.after === null])).toEqual([
      [`"acme" created:>${iso(86_400_000)}`, 50, true],
      [`"acme" created:>${iso(86_400_000)}`, 50, false],
    ]);
    expect(fake.graphqlRequests[0]!.authorization).toBe("Bearer ghp_test");
    const later = discussion("Acme later", -5_000);
    fake.discussions.push(later);
    const cursor = JSON.parse(JSON.stringify(first.cursor)) as unknown;
    const second = await createGithubCollector(tokened).poll(input(cursor, { now: TEST_NOW + 10_000 }));
    expect(ids(second)).toEqual([later.id]);
    // The newest discussion of the first pass (the deleted account's) is where the next pass starts.
    expect(fake.graphqlRequests.at(-1)!.q).toBe(`"acme" created:>${iso(120_000)}`);
  });

  it("backs off a GraphQL RATE_LIMITED answer until its reset, and reports another GraphQL error as a refusal", async () => {
    fake.discussions.push(discussion("Acme idea", 60_000));
    const tokened = depsOf({ EARSHOT_GITHUB_TOKEN: "ghp_test" });
    fake.graphqlErrors.push("RATE_LIMITED");
    const limited = await createGithubCollector(tokened).poll(input()).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ProviderRateLimited);
    expect((limited as ProviderRateLimited).retryAt.getTime()).toBe(Math.floor(Date.parse(fake.graphqlWindow.resetAt) / 1000) * 1000);
    fake.graphqlErrors.push("INTERNAL");
    const refused = await createGithubCollector(tokened).poll(input()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProviderRejected);
    expect((refused as Error).message).toMatch(/GraphQL: fake INTERNAL/);
  });
});
