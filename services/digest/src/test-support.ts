import { ACCOUNT_EVENTS, ALERT_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { MENTION_STATUS_WORDS } from "@earshot/contracts/fields";
import { type DocumentStore, ManualClock, type Mailer, type MailMessage, newId, openEmbeddedStore, silentLogger, SOURCE_WORDS, unsubscribeLinkKey } from "@earshot/platform";
import { receivedEvent } from "@earshot/platform/testing";
import type { DigestDeps } from "./domain/deps";
import { handleMentionCreated } from "./domain/mentions";
import { handleAccountEvent, handleAlertEvent, handleProjectEvent } from "./domain/copies";
import { handleKeywordEvent } from "./domain/keyword-groups";
import { openDigestCollections } from "./store";
import { wireDigest } from "./wiring";

// The digest tests' world: the service's domain on the embedded store with a ManualClock, events fed to
// its consumers as the bus would deliver them, and a mailer that keeps what it was handed (or a real one).

export const PUBLIC_URL = "https://earshot.test";
/** The unsubscribe links' key of the tests' replicas (what the edge would derive from the same encryption key). */
export const LINK_KEY = unsubscribeLinkKey(Buffer.alloc(32, 3));

export interface DigestWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: DigestDeps;
  /** What the world's mailer was handed, in order. */
  sent: MailMessage[];
  /** Another replica over the same store, with its own mailer (defaults to the world's). */
  replica(mailer?: Mailer): DigestDeps;
  /** A workspace with its owner (user.created). */
  owner(email?: string): Promise<{ workspaceId: string; userId: string; email: string }>;
  /** A project (project.created) of `workspaceId`, and its Daily Digest rule (alert.created), as the services publish them. */
  project(workspaceId: string, digestTimezone?: string, name?: string): Promise<{ projectId: string; dailyDigestId: string }>;
  rule(projectId: string, workspaceId: string, fields?: Record<string, unknown>): Promise<string>;
  mention(projectId: string, workspaceId: string, fields?: Record<string, unknown>): Promise<string>;
  /** A `mention.created` event as the bus hands it, not handled yet. */
  mentionEvent(projectId: string, workspaceId: string, fields?: Record<string, unknown>): MentionCreatedEvent;
  event(catalog: "account" | "project" | "alert" | "keyword", type: string, data: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export type MentionCreatedEvent = Extract<Parameters<typeof handleMentionCreated>[1], { type: "mention.created" }>;

export const openDigestWorld = async (start: Date, mailer?: Mailer): Promise<DigestWorld> => {
  const store = await openEmbeddedStore();
  const clock = new ManualClock(start);
  const collections = await openDigestCollections(store);
  const sent: MailMessage[] = [];
  const capturing: Mailer = {
    send: async (m) => {
      sent.push(m);
      return { messageId: `<${sent.length}@test>`, via: "memory" };
    },
    close: () => undefined,
  };
  const replica = (m: Mailer = mailer ?? capturing) => wireDigest({ collections, clock, logger: silentLogger(), mailer: m, publicUrl: PUBLIC_URL, linkKey: LINK_KEY });
  const deps = replica();
  const event = async (catalog: "account" | "project" | "alert" | "keyword", type: string, data: Record<string, unknown>) => {
    if (catalog === "account") await handleAccountEvent(deps, receivedEvent(ACCOUNT_EVENTS, type, data, clock));
    if (catalog === "project") await handleProjectEvent(deps, receivedEvent(PROJECT_EVENTS, type, data, clock));
    if (catalog === "alert") await handleAlertEvent(deps, receivedEvent(ALERT_EVENTS, type, data, clock));
    if (catalog === "keyword") await handleKeywordEvent(deps, receivedEvent(KEYWORD_EVENTS, type, data, clock));
  };
  const rule = async (projectId: string, workspaceId: string, fields: Record<string, unknown> = {}) => {
    const alertId = newId("alr", clock.now().getTime());
    await event("alert", "alert.created", {
      alertId,
      projectId,
      workspaceId,
      name: "Daily Digest",
      active: true,
      digestEnabled: true,
      digestHour: 8,
      instant: false,
      isDefault: false,
      createdAt: clock.now().toISOString(),
      ...fields,
    });
    return alertId;
  };
  let n = 0;
  const mentionEvent = (projectId: string, workspaceId: string, fields: Record<string, unknown> = {}): MentionCreatedEvent => {
    const mentionId = newId("men", clock.now().getTime() + ++n);
    const now = clock.now().toISOString();
    const { keywords, groups, ...mention } = {
      source: "reddit",
      sourceId: `t3_${n}`,
      url: `https://www.reddit.com/r/selfhosted/comments/${n}/`,
      text: "Acme shipped a release today",
      author: { id: `t2_${n}`, handle: "bob", name: "Bob" },
      publishedAt: now,
      keywordIds: ["kw_1"],
      groupIds: ["kwg_1"],
      keywords: [{ keywordId: "kw_1", value: "Acme", groupId: "kwg_1" }],
      groups: [{ groupId: "kwg_1", name: "My brand" }],
      matches: [],
      sentiment: { label: "neutral", score: 0, method: "lexicon" },
      status: "open",
      collectedAt: now,
      matchedAt: now,
      updatedAt: now,
      ...fields,
    } as Record<string, unknown> & { source: string; status: string };
    // The event's mention is the gRPC message in its JSON form: the source and status as their enum values.
    const message = { ...mention, id: mentionId, projectId, source: SOURCE_WORDS.value(mention.source), status: MENTION_STATUS_WORDS.value(mention.status) };
    return receivedEvent(MENTION_EVENTS, "mention.created", { projectId, workspaceId, keywords, groups, mention: message }, clock) as MentionCreatedEvent;
  };
  return {
    store,
    clock,
    deps,
    sent,
    replica,
    event,
    rule,
    owner: async (email = `owner${++n}@example.com`) => {
      const workspaceId = newId("wsp", clock.now().getTime());
      const userId = newId("usr", clock.now().getTime());
      await event("account", "user.created", { userId, workspaceId, email });
      return { workspaceId, userId, email };
    },
    project: async (workspaceId, digestTimezone = "UTC", name = "Launch") => {
      const projectId = newId("prj", clock.now().getTime());
      await event("project", "project.created", { projectId, workspaceId, ownerId: "usr_1", name, digestTimezone, enabledSources: ["x", "reddit"] });
      const dailyDigestId = await rule(projectId, workspaceId, { isDefault: true });
      return { projectId, dailyDigestId };
    },
    mentionEvent,
    mention: async (projectId, workspaceId, fields = {}) => {
      const created = mentionEvent(projectId, workspaceId, fields);
      await handleMentionCreated(deps, created);
      return created.data.mention!.id;
    },
    close: () => store.close(),
  };
};
