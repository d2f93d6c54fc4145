import { appLinks } from "@earshot/contracts";
import type { AccountEvent } from "@earshot/contracts/events";
import { conflict, DomainError, newId, notFound, validationFailed, zodFieldErrors } from "@earshot/platform/core";
import { createFeedSchema } from "../fields";
import type { FeedDoc } from "../store";
import { accessProject } from "./access";
import type { Caller, IntegrationDeps } from "./deps";
import { reconcileProject } from "./pollers";

// The feeds a project reads (create_feed, list_feeds, delete_feed): editors add and remove them, any member
// lists them. A feed's URL follows the outbound rule webhooks follow (checked when it is added, and again
// at every fetch); adding the first feed starts the project's `rss` poller, which fetches it within
// seconds, and removing the last one stops it.

export const MAX_FEEDS_PER_PROJECT = 50;

export interface CreateFeedInput {
  projectId: string;
  url: string;
  name?: string;
}

const checkFields = (input: CreateFeedInput): { url: string; name: string } => {
  // The very fields the edge publishes and validates with.
  const parsed = createFeedSchema.safeParse({ url: input.url, ...(input.name !== undefined && input.name !== "" ? { name: input.name } : {}) });
  if (!parsed.success) throw validationFailed(zodFieldErrors(parsed.error.issues));
  return { url: new URL(parsed.data.url).toString(), name: parsed.data.name ?? "" };
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

/**
 * Tells the workspace's owner, once per run of failures, that a feed has failed for FEED_FAILING_MS: the
 * replica that marks the feed reported sends the mail, so two replicas never both do. Earshot keeps trying
 * the feed; a success ends the run, and a later run is reported again.
 */
export const reportFailingFeed = async (deps: IntegrationDeps, feed: FeedDoc): Promise<boolean> => {
  const now = deps.clock.now();
  if (!feed.failingSince || feed.failureReportedAt || now.getTime() - feed.failingSince.getTime() < FEED_FAILING_MS) return false;
  const owner = (await deps.collections.workspaceOwners.findById(feed.workspaceId))?.ownerEmail;
  if (!owner) {
    deps.logger.warn({ feedId: feed._id }, "feed failing for two days; the workspace owner's address is unknown");
    return false;
  }
  const claimed = await deps.collections.feeds.updateOne({ _id: feed._id, failureReportedAt: { $exists: false }, failingSince: feed.failingSince }, { $set: { failureReportedAt: now } });
  if (claimed.matchedCount === 0) return false;
  await deps.mailer.send({ to: owner, ...feedFailingEmail({ ...feed, failingSince: feed.failingSince }, deps.publicUrl) });
  return true;
};

/** The mail telling the workspace owner a feed has failed for two days; it links the project's sources page. */
export const feedFailingEmail = (feed: Pick<FeedDoc, "name" | "url" | "projectId" | "lastError"> & { failingSince: Date }, publicUrl: string): { subject: string; text: string } => ({
  subject: `Earshot cannot read the feed "${feed.name}"`,
  text:
    `Every fetch of the feed "${feed.name}" (${feed.url}) in project ${feed.projectId} has failed since ${feed.failingSince.toISOString()}` +
    `${feed.lastError ? `; the last error: ${feed.lastError.message}` : ""}.\n\n` +
    "Earshot keeps trying it at every poll, and its entries will arrive once it answers again. If the feed moved, delete it " +
    `and add its new address. The project's feeds, each with its last error: ${appLinks(publicUrl).sources(feed.projectId)}\n`,
});

/** What the workspace owners' copy keeps of the account service's events. */
export const handleOwnerEvent = async (deps: IntegrationDeps, event: AccountEvent): Promise<void> => {
  if (event.type !== "user.created" || !event.data.workspaceId || !event.data.email) return;
  await deps.collections.workspaceOwners.updateOne({ _id: event.data.workspaceId }, { $set: { ownerEmail: event.data.email } }, { upsert: true });
};

/** After a poll of the project's feeds: each feed failing for two days is reported, once (a mail failure is only logged). */
export const reportFailingFeeds = async (deps: IntegrationDeps, projectId: string): Promise<void> => {
  for (const feed of await deps.collections.feeds.find({ projectId, failingSince: { $exists: true } })) {
    await reportFailingFeed(deps, feed).catch((err: unknown) => deps.logger.warn({ err, feedId: feed._id }, "failing feed not reported"));
  }
};
