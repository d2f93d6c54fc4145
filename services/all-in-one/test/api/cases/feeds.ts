import type { Actor, Harness } from "../harness";
import { type Cases, MISSING_PROJECT } from "./support";

const MISSING_FEED = "feed_01JZZZZZZZZZZZZZZZZZZZZZZZ";
let n = 0;
/** A feed URL nobody serves (the test instance allows private networks, so loopback is accepted). */
const feedUrl = () => `http://127.0.0.1:9/feeds/${++n}.xml`;

const createFeed = async (h: Harness, actor: Actor, projectId: string): Promise<string> => {
  const res = await h.call("create_feed", { projectId, url: feedUrl() }, actor.key);
  if (res.status !== 201) throw new Error(`create_feed failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { id: string }).id;
};

export const feedsCases: Cases = {
  create_feed: {
    happy: async (_h, w) => {
      const url = feedUrl();
      return {
        input: { projectId: w.projectId, url, name: "Acme news" },
        as: "editor",
        status: 201,
        check: (b) =>
          expect(b.data).toEqual({
            id: expect.stringMatching(/^feed_/),
            projectId: w.projectId,
            url,
            name: "Acme news",
            createdAt: expect.any(String),
            lastFetchedAt: null,
            lastSuccessAt: null,
            lastError: null,
            failingSince: null,
            entriesFound: 0,
          }),
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, url: "x".repeat(2049), name: "n".repeat(101), extra: 1 }, fields: ["url", "name", "extra"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, url: feedUrl() }, as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId, url: feedUrl() } }, missing: { input: { projectId: MISSING_PROJECT, url: feedUrl() } } }),
  },
  list_feeds: {
    happy: async (h, w) => {
      const feedId = await createFeed(h, w.owner, w.projectId);
      return { input: { projectId: w.projectId }, as: "viewer", status: 200, check: (b) => expect((b.data as Array<{ id: string }>).map((f) => f.id)).toContain(feedId) };
    },
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  delete_feed: {
    happy: async (h, w) => {
      const feedId = await createFeed(h, w.owner, w.projectId);
      return { input: { feedId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: feedId, projectId: w.projectId }) };
    },
    bad: async () => ({ input: { feedId: "f".repeat(65) }, fields: ["feedId"] }),
    tooWeak: async (h, w) => ({ input: { feedId: await createFeed(h, w.owner, w.projectId) }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { feedId: await createFeed(h, w.stranger, w.strangerProjectId) } }, missing: { input: { feedId: MISSING_FEED } } }),
  },
};
