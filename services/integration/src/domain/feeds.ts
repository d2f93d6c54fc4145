import { conflict, DomainError, type FieldError, newId, notFound, validationFailed } from "@earshot/platform/core";
import type { FeedDoc } from "../store";
import { accessProject } from "./access";
import type { Caller, IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";

// The feeds a project reads (create_feed, list_feeds, delete_feed): editors add and remove them, any member
// lists them. A feed's URL follows the outbound rule webhooks follow (checked when it is added, and again
// at every fetch); adding the first feed starts the project's `rss` poller, which fetches it within
// seconds, and removing the last one stops it.

export const MAX_FEEDS_PER_PROJECT = 50;
const MAX_URL = 2048;
const MAX_NAME = 100;

export interface CreateFeedInput {
  projectId: string;
  url: string;
  name?: string;
}

const checkFields = (input: CreateFeedInput): { url: string; name: string } => {
  const errors: FieldError[] = [];
  let url = "";
  try {
    const parsed = new URL(input.url.trim());
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") errors.push({ path: "url", message: "must be an http or https URL" });
    else if (parsed.username || parsed.password) errors.push({ path: "url", message: "must not hold a user name or password" });
    else url = parsed.toString();
  } catch {
    errors.push({ path: "url", message: "must be an absolute http or https URL" });
  }
  if (input.url.length > MAX_URL) errors.push({ path: "url", message: `must be at most ${MAX_URL} characters` });
  const name = (input.name ?? "").trim();
  if (name.length > MAX_NAME) errors.push({ path: "name", message: `must be at most ${MAX_NAME} characters` });
  if (errors.length > 0) throw validationFailed(errors);
  return { url, name };
};

const hostOf = (url: string): string => new URL(url).hostname.replace(/^www\./, "");

export const createFeed = async (deps: IntegrationDeps, caller: Caller, input: CreateFeedInput): Promise<FeedDoc> => {
  const fields = checkFields(input);
  const access = await accessProject(deps, caller, input.projectId, "editor");
  const refused = await deps.refusedUrl(fields.url);
  // A host that does not resolve now may later (and source health will say): only the rule's refusals stop it here.
  if (refused && !refused.startsWith("must name a host that resolves")) throw validationFailed([{ path: "url", message: refused }]);
  const existing = await deps.collections.feeds.find({ projectId: input.projectId });
  if (existing.some((f) => f.url === fields.url)) throw conflict("This project already reads that feed.", { feedId: existing.find((f) => f.url === fields.url)!._id });
  if (existing.length >= MAX_FEEDS_PER_PROJECT) {
    throw new DomainError("validation_failed", `A project reads at most ${MAX_FEEDS_PER_PROJECT} feeds.`, { errors: [{ path: "url", message: `the project already reads ${MAX_FEEDS_PER_PROJECT} feeds; delete one first` }] });
  }
  const now = deps.clock.now();
  const feed: FeedDoc = {
    _id: newId("feed", now.getTime()),
    projectId: input.projectId,
    workspaceId: access.workspaceId,
    url: fields.url,
    name: fields.name || hostOf(fields.url),
    createdAt: now,
    createdBy: caller.userId,
    entriesFound: 0,
  };
  await deps.collections.feeds.insertOne(feed);
  await reconcileProject(deps, input.projectId);
  return feed;
};

export const listFeeds = async (deps: IntegrationDeps, caller: Caller, projectId: string): Promise<FeedDoc[]> => {
  await accessProject(deps, caller, projectId, "viewer");
  return deps.collections.feeds.find({ projectId }, { sort: { createdAt: 1 } });
};

export const deleteFeed = async (deps: IntegrationDeps, caller: Caller, feedId: string): Promise<FeedDoc> => {
  const feed = await deps.collections.feeds.findById(feedId);
  // Another workspace's feed, or none: the same answer.
  if (!feed || !caller.membership(feed.projectId)) throw notFound("Feed");
  await accessProject(deps, caller, feed.projectId, "editor", "Feed");
  await deps.collections.feeds.deleteOne({ _id: feedId });
  await reconcileProject(deps, feed.projectId);
  return feed;
};

/** Feeds failing for this long are shown in source health (and reported to the owner once). */
export const FEED_FAILING_MS = 2 * 24 * 3600 * 1000;

/** What source health says of the project's feeds that keep failing. */
export const failingFeedNotes = async (deps: IntegrationDeps, projectId: string, now: Date): Promise<string[]> =>
  (await deps.collections.feeds.find({ projectId }, { sort: { createdAt: 1 } }))
    .filter((f) => f.failingSince && now.getTime() - f.failingSince.getTime() >= FEED_FAILING_MS)
    .map((f) => `Feed "${f.name}" (${f.url}) has failed since ${f.failingSince!.toISOString()}: ${f.lastError?.message ?? "unknown error"}.`);
