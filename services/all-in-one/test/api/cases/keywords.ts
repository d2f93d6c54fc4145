import type { Harness } from "../harness";
import { createKeyword, keywordInput, uniqueName, type World } from "../world";
import { type Cases, MISSING_PROJECT, MISSING_KEYWORD } from "./support";

/** A keyword of the world's project, made by its owner. */
const ownKeyword = async (h: Harness, w: World) => (await createKeyword(h, w.owner, w.projectId)).id;
/** A keyword of the stranger's project, which the world's owner must not see. */
const strangerKeyword = async (h: Harness, w: World) => (await createKeyword(h, w.stranger, w.strangerProjectId)).id;

// Wrong on every count the keyword fields check: an empty value, an unknown source, one alias too many,
// a string for a list, an unknown filter member and a string for a boolean.
const BAD_KEYWORD_FIELDS = {
  value: "",
  sources: ["x", "myspace"],
  aliases: Array.from({ length: 21 }, (_, i) => `alias ${i}`),
  excludedTerms: "spam",
  filters: { colour: "red" },
  caseSensitive: "yes",
};
const BAD_KEYWORD_PATHS = ["value", "sources.1", "aliases", "excludedTerms", "filters.colour", "caseSensitive"];

export const keywordsCases: Cases = {
  preview_keyword: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      return {
        input: { projectId: w.projectId, keywordId, excludedTerms: ["spam"] },
        as: "viewer",
        status: 200,
        check: (b) => {
          expect(b.data).toMatchObject({ projectId: w.projectId, keywordId, wouldMatch: { count: 0, mentions: [] }, wouldNoLongerMatch: { count: 0, mentions: [] }, alreadyMatching: 0 });
          expect(b.meta).toMatchObject({ scanned: expect.any(Number), truncated: false, scannedFrom: null });
        },
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, ...BAD_KEYWORD_FIELDS }, fields: BAD_KEYWORD_PATHS }),
    foreign: async (h, w) => ({
      foreign: { input: { projectId: w.strangerProjectId, value: "Acme" } },
      missing: { input: { projectId: MISSING_PROJECT, value: "Acme" } },
    }),
  },
  list_keywords: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      return {
        input: { projectId: w.projectId, active: true, source: "reddit" },
        as: "viewer",
        status: 200,
        check: (b) => {
          const data = b.data as Array<{ id: string; active: boolean; sources: string[] }>;
          expect(data.map((k) => k.id)).toContain(keywordId);
          for (const k of data) expect(k).toMatchObject({ active: true, sources: expect.arrayContaining(["reddit"]) });
        },
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, active: "yes", source: "myspace", limit: 0 }, fields: ["active", "source", "limit"] }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  create_keyword: {
    happy: async (_h, w) => {
      const input = { ...keywordInput(w.projectId), aliases: ["Acme Corp"], filters: { languages: ["en", "fr"], minFollowers: 10, allOf: [] } };
      return {
        input,
        as: "editor",
        status: 201,
        check: (b) =>
          expect(b.data).toEqual({
            id: expect.stringMatching(/^kw_/),
            projectId: w.projectId,
            groupId: expect.stringMatching(/^kwg_/),
            value: input.value,
            sources: ["x", "reddit"],
            aliases: ["Acme Corp"],
            excludedTerms: [],
            // Only the filters that restrict something: the empty allOf is left out.
            filters: { languages: ["en", "fr"], minFollowers: 10 },
            caseSensitive: false,
            active: true,
            createdAt: expect.any(String),
            updatedAt: expect.any(String),
            deactivatedAt: null,
          }),
      };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, ...BAD_KEYWORD_FIELDS }, fields: BAD_KEYWORD_PATHS }),
    tooWeak: async (_h, w) => ({ input: keywordInput(w.projectId), as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: keywordInput(w.strangerProjectId) }, missing: { input: keywordInput(MISSING_PROJECT) } }),
  },
  get_keyword: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      return { input: { keywordId }, as: "viewer", status: 200, check: (b) => expect(b.data).toMatchObject({ id: keywordId, projectId: w.projectId, active: true }) };
    },
    bad: async () => ({ input: { keywordId: "k".repeat(65) }, fields: ["keywordId"] }),
    foreign: async (h, w) => ({ foreign: { input: { keywordId: await strangerKeyword(h, w) } }, missing: { input: { keywordId: MISSING_KEYWORD } } }),
  },
  update_keyword: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      const value = uniqueName("Renamed");
      return {
        input: { keywordId, value, sources: ["youtube"], excludedTerms: ["hiring"], filters: { youtubeChannels: ["@acme"] }, caseSensitive: true },
        as: "editor",
        status: 200,
        check: (b) =>
          expect(b.data).toMatchObject({ id: keywordId, value, sources: ["youtube"], excludedTerms: ["hiring"], filters: { youtubeChannels: ["@acme"] }, caseSensitive: true, active: true }),
      };
    },
    bad: async () => ({ input: { keywordId: "kw_x", sources: [], filters: { colour: "red" }, active: "no", groupId: "" }, fields: ["keywordId", "sources", "filters.colour", "active", "groupId"] }),
    tooWeak: async (h, w) => ({ input: { keywordId: await ownKeyword(h, w), value: "Viewer's choice" }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { keywordId: await strangerKeyword(h, w), value: "Mine" } }, missing: { input: { keywordId: MISSING_KEYWORD, value: "Mine" } } }),
  },
  delete_keyword: {
    happy: async (h, w) => {
      const keywordId = await ownKeyword(h, w);
      return { input: { keywordId }, as: "editor", status: 200, check: (b) => expect(b.data).toMatchObject({ id: keywordId, active: false, deactivatedAt: expect.any(String) }) };
    },
    bad: async () => ({ input: { keywordId: "k".repeat(65) }, fields: ["keywordId"] }),
    tooWeak: async (h, w) => ({ input: { keywordId: await ownKeyword(h, w) }, as: "viewer" }),
    foreign: async (h, w) => ({ foreign: { input: { keywordId: await strangerKeyword(h, w) } }, missing: { input: { keywordId: MISSING_KEYWORD } } }),
  },
};
