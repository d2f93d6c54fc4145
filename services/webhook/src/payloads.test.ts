import { INTEGRATION_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import {
  presentKeyword,
  presentKeywordGroup,
  presentLinkedinIntegrationData,
  presentMentionWithHistory,
  presentProjectData,
} from "@earshot/contracts/resources";
import type { EventCatalog, EventMessages } from "@earshot/platform";
import { receivedEvent } from "@earshot/platform/testing";
import { commonV1, integrationV1, keywordV1, mentionV1, projectV1 } from "@earshot/proto";
import { WEBHOOK_EVENT_TYPES } from "./fields";
import { openDeliveryWorld } from "./delivery-test-support";
import { fanOutBatch } from "./domain/fan-out";
import { type DeliverableCatalogEvent, deliverableOf } from "./payloads";

// Each deliverable type's body, from an event as the bus hands it over (its JSON form decoded with the
// catalog): `data` is the resource the event carries, presented by the API's presenter (numbers as numbers,
// null for what is absent, no caller's role), and `context` the rest of the event. Every deliverable type
// has its case here; the end-to-end comparison with the API's reads is the all-in-one's webhook-data test.

const at = new Date("2026-11-20T10:00:00.000Z");
const PUBLIC_URL = "https://earshot.example";
const workspaceId = "wsp_1";
const projectId = "prj_1";

const project = projectV1.Project.fromPartial({
  id: projectId,
  workspaceId,
  ownerId: "usr_1",
  name: "Launch",
  enabledSources: [commonV1.Source.SOURCE_X],
  status: commonV1.ProjectStatus.PROJECT_STATUS_ACTIVE,
  digestTimezone: "UTC",
  publicDashboard: { enabled: true, shareId: "shr_1", description: "", websiteUrl: "" },
  createdAt: at,
  updatedAt: at,
});
const keyword = keywordV1.Keyword.fromPartial({ id: "kw_1", projectId, groupId: "kwg_1", value: "Acme", sources: [commonV1.Source.SOURCE_X], filters: { minFollowers: 10 }, active: true, createdAt: at, updatedAt: at });
const group = keywordV1.KeywordGroup.fromPartial({ id: "kwg_1", projectId, name: "Rivals", order: 2, keywordCount: 3, inactiveKeywordCount: 1, createdAt: at, updatedAt: at });
const mention = mentionV1.Mention.fromPartial({
  id: "men_1",
  projectId,
  source: commonV1.Source.SOURCE_REDDIT,
  sourceId: "t3_1",
  url: "https://www.reddit.com/r/selfhosted/comments/1/",
  text: "Acme rocks",
  author: { id: "t2_1", handle: "bob", name: "Bob", followers: "12" },
  publishedAt: at,
  metrics: { likes: "126", replies: "3", shares: "0", views: "900" },
  keywordIds: ["kw_1"],
  groupIds: ["kwg_1"],
  sentiment: { label: "positive", score: 0.5, method: "lexicon" },
  status: mentionV1.MentionStatus.MENTION_STATUS_OPEN,
  collectedAt: at,
  matchedAt: at,
  updatedAt: at,
});
const integration = integrationV1.LinkedinIntegration.fromPartial({
  projectId,
  status: integrationV1.LinkedinStatus.LINKEDIN_STATUS_CONNECTED,
  pages: [{ organizationUrn: "urn:li:organization:1", name: "Acme" }],
  page: { organizationUrn: "urn:li:organization:1", name: "Acme" },
  connectedAt: at,
});

type Case = { event: DeliverableCatalogEvent; data: unknown; context: Record<string, unknown> };

const cases: Record<string, () => Case> = {
  "project.created": () => ({ event: ev(PROJECT_EVENTS, "project.created", { projectId, workspaceId, project }), data: presentProjectData(project, PUBLIC_URL), context: { workspaceId } }),
  "project.updated": () => ({ event: ev(PROJECT_EVENTS, "project.updated", { projectId, workspaceId, fields: ["name"], project }), data: presentProjectData(project, PUBLIC_URL), context: { workspaceId, changed: ["name"] } }),
  "project.archived": () => ({ event: ev(PROJECT_EVENTS, "project.archived", { projectId, workspaceId, project }), data: presentProjectData(project, PUBLIC_URL), context: { workspaceId } }),
  "keyword.created": () => ({ event: ev(KEYWORD_EVENTS, "keyword.created", { keywordId: "kw_1", projectId, workspaceId, keyword }), data: presentKeyword(keyword), context: { workspaceId } }),
  "keyword.updated": () => ({ event: ev(KEYWORD_EVENTS, "keyword.updated", { keywordId: "kw_1", projectId, workspaceId, fields: ["groupId"], keyword }), data: presentKeyword(keyword), context: { workspaceId, changed: ["groupId"] } }),
  "keyword.deactivated": () => ({ event: ev(KEYWORD_EVENTS, "keyword.deactivated", { keywordId: "kw_1", projectId, workspaceId, fields: ["active"], keyword }), data: presentKeyword(keyword), context: { workspaceId, changed: ["active"] } }),
  "keyword_group.created": () => ({ event: ev(KEYWORD_EVENTS, "keyword_group.created", { groupId: "kwg_1", projectId, workspaceId, group }), data: presentKeywordGroup(group), context: { workspaceId } }),
  "keyword_group.updated": () => ({ event: ev(KEYWORD_EVENTS, "keyword_group.updated", { groupId: "kwg_1", projectId, workspaceId, fields: ["name"], group }), data: presentKeywordGroup(group), context: { workspaceId, changed: ["name"] } }),
  "keyword_group.deleted": () => ({ event: ev(KEYWORD_EVENTS, "keyword_group.deleted", { groupId: "kwg_1", projectId, workspaceId, group }), data: presentKeywordGroup(group), context: { workspaceId } }),
  "mention.created": () => ({
    event: ev(MENTION_EVENTS, "mention.created", { projectId, workspaceId, keywords: [{ keywordId: "kw_1", value: "Acme", groupId: "kwg_1" }], groups: [{ groupId: "kwg_1", name: "Rivals" }], mention }),
    data: presentMentionWithHistory(mention),
    context: { workspaceId, keywords: [{ id: "kw_1", value: "Acme", groupId: "kwg_1" }], groups: [{ id: "kwg_1", name: "Rivals" }] },
  }),
  "mention.updated": () => ({
    event: ev(MENTION_EVENTS, "mention.updated", { mentionId: "men_1", projectId, workspaceId, fields: ["status"], byUserId: "usr_2", mention }),
    data: presentMentionWithHistory(mention),
    context: { workspaceId, changed: ["status"], byUserId: "usr_2" },
  }),
  "integration.linkedin.connected": () => ({ event: ev(INTEGRATION_EVENTS, "integration.linkedin.connected", { projectId, workspaceId, integration }), data: presentLinkedinIntegrationData(integration), context: { workspaceId } }),
  "integration.linkedin.disconnected": () => ({
    event: ev(INTEGRATION_EVENTS, "integration.linkedin.disconnected", { projectId, workspaceId, reason: "reauthorization_required", integration }),
    data: presentLinkedinIntegrationData(integration),
    context: { workspaceId, reason: "reauthorization_required" },
  }),
  "integration.linkedin.synced": () => ({ event: ev(INTEGRATION_EVENTS, "integration.linkedin.synced", { projectId, workspaceId, postsFound: 4, integration }), data: presentLinkedinIntegrationData(integration), context: { workspaceId, postsFound: 4 } }),
};

/** The event as the consumer hands it over: the staged data through its JSON form, decoded by the catalog. */
function ev<M extends EventMessages>(catalog: EventCatalog<M>, type: string, data: object): DeliverableCatalogEvent {
  return { ...receivedEvent(catalog, type, data), published: data } as unknown as DeliverableCatalogEvent;
}

describe("a delivery's body", () => {
  it("has a case here for every deliverable type", () => {
    expect(Object.keys(cases).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  it.each(WEBHOOK_EVENT_TYPES)("%s: data is the event's resource as the API presents it, context the rest", (type) => {
    const c = cases[type]!();
    const deliverable = deliverableOf(c.event, { publicUrl: PUBLIC_URL });
    expect(deliverable.data).toEqual({ workspaceId, projectId });
    expect(deliverable.body()).toEqual({ data: c.data, context: c.context });
  });

  it("carries numbers as numbers, absent values as null and no caller's role", () => {
    const { data } = deliverableOf(cases["mention.created"]!().event, { publicUrl: PUBLIC_URL }).body() as { data: Record<string, unknown> };
    expect(data).toMatchObject({ id: "men_1", metrics: { likes: 126, replies: 3, shares: 0, views: 900 }, author: { followers: 12 }, title: null, categoryId: null, history: [] });
    const projectData = deliverableOf(cases["project.updated"]!().event, { publicUrl: PUBLIC_URL }).body().data as Record<string, unknown>;
    expect(projectData).not.toHaveProperty("role");
    expect(projectData).toMatchObject({ publicDashboard: { shareUrl: "https://earshot.example/p/shr_1" } });
  });

  it("cannot be made for an event that does not carry its resource (one an older producer staged)", () => {
    const old = ev(MENTION_EVENTS, "mention.created", { projectId, workspaceId, keywords: [], groups: [] });
    expect(() => deliverableOf(old, { publicUrl: PUBLIC_URL }).body()).toThrow(/without a mention/);
  });
});

it("fans out the rest of a batch when one event does not carry its resource, which is left undelivered", async () => {
  const world = await openDeliveryWorld();
  try {
    await world.endpoint({ url: "https://receiver.example/hooks", workspaceId, eventTypes: ["mention.created"] });
    const good = { ...cases["mention.created"]!().event, id: "evt_good" } as DeliverableCatalogEvent;
    const old = { ...ev(MENTION_EVENTS, "mention.created", { projectId, workspaceId, keywords: [], groups: [] }), id: "evt_old" } as DeliverableCatalogEvent;
    await fanOutBatch(world.deps, [old, good].map((e) => deliverableOf(e, { publicUrl: PUBLIC_URL })));
    const made = await world.collections.deliveries.find({});
    expect(made.map((d) => d.eventId)).toEqual(["evt_good"]);
    expect(JSON.parse(made[0]!.body)).toMatchObject({ type: "mention.created", data: { id: "men_1" }, context: { workspaceId } });
  } finally {
    await world.close();
  }
});
