import type { integrationV1 } from "@earshot/proto";
import { z } from "zod";
import { at, atOrNull, required, resourceSchemas, timestamp } from "../shared/resources";

// An RSS or Atom feed a project reads (create_feed, list_feeds, delete_feed).

export const feedSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    url: z.string().describe("The feed's address: RSS 2.0, RSS 1.0 or Atom 1.0 (a Google Alerts feed, a news site's, a blog's)."),
    name: z.string().describe("The name given when it was added, or its host."),
    createdAt: timestamp,
    lastFetchedAt: timestamp.nullable().describe("When Earshot last fetched it (a conditional GET); null before the first fetch."),
    lastSuccessAt: timestamp.nullable(),
    lastError: z
      .object({ at: timestamp, message: z.string(), status: z.number().int().describe("The feed's HTTP status; 0 when there was no answer or it was refused before asking.") })
      .nullable(),
    failingSince: timestamp.nullable().describe("When the current run of failed fetches began; null while fetches succeed. After two days, source health names the feed."),
    entriesFound: z.number().int().describe("Entries that matched one of the project's keywords and were handed on, in all."),
  })
  .register(resourceSchemas, { id: "Feed", description: "An RSS or Atom feed a project reads; its entries that match the project's keywords become mentions with source rss." });

export type Feed = z.output<typeof feedSchema>;

export const presentFeed = (message: integrationV1.Feed | undefined): Feed => {
  const f = required(message, "feed");
  return {
    id: f.id,
    projectId: f.projectId,
    url: f.url,
    name: f.name,
    createdAt: at(f.createdAt, "feed createdAt"),
    lastFetchedAt: atOrNull(f.lastFetchedAt),
    lastSuccessAt: atOrNull(f.lastSuccessAt),
    lastError: f.lastError ? { at: at(f.lastError.at, "feed lastError.at"), message: f.lastError.message, status: f.lastError.status } : null,
    failingSince: atOrNull(f.failingSince),
    entriesFound: Number(f.entriesFound),
  };
};
