import { type AnyEventCatalog, type CloudEvent, decodeEvent, isEventOf } from "@earshot/platform";
import {
  keywordGroupSchema,
  keywordSchema,
  linkedinIntegrationDataSchema,
  mentionWithHistorySchema,
  projectDataSchema,
  resourceSchemas,
} from "@earshot/contracts/resources";
import { commonV1, integrationV1, keywordV1, mentionV1, projectV1 } from "@earshot/proto";
import { z } from "zod";
import { DELIVERABLE_CATALOGS, type WebhookEventType } from "./deliverable";
import { type DeliverableCatalogEvent, deliverableOf } from "./payloads";

// What each deliverable type's delivery holds, for the API's documents (the OpenAPI `webhooks` object):
// its `data` resource (a named schema of the contract layer), the schema of its `context`, and an example
// made by the fan-out's own payload code from example resource messages, so the example is what a
// receiver gets. Published as `@earshot/webhook/payloads`.

export interface WebhookPayloadDoc {
  summary: string;
  /** The named resource schema `data` is (its components.schemas id). */
  data: z.ZodType;
  context: z.ZodType;
  /** A whole body as a receiver gets it. */
  example: { type: string; timestamp: string; data: unknown; context: Record<string, unknown> };
}

const workspace = { workspaceId: z.string().describe("The workspace the resource belongs to.") };
const changed = { changed: z.array(z.string()).optional().describe("The fields the update changed (left out when it says none).") };
const plain = z.object(workspace);
const update = z.object({ ...workspace, ...changed });

const at = new Date("2026-11-20T10:00:00.000Z");
const workspaceId = "wsp_01JD8W1Q0Z6Y5X4V3T2S1R0Q9P";
const projectId = "prj_01JD8W2A7B6C5D4E3F2G1H0J9K";
const publicUrl = "https://earshot.example.com";

const project = projectV1.Project.fromPartial({
  id: projectId,
  workspaceId,
  ownerId: "usr_01JD8W0M9N8P7Q6R5S4T3V2W1X",
  name: "Launch",
  description: "Our November launch",
  color: "#3355ff",
  icon: "rocket",
  enabledSources: [commonV1.Source.SOURCE_X, commonV1.Source.SOURCE_REDDIT],
  status: commonV1.ProjectStatus.PROJECT_STATUS_ACTIVE,
  digestTimezone: "Europe/Paris",
  publicDashboard: { enabled: true, shareId: "shr_7Hq2kLm9", description: "What people say about our launch", websiteUrl: "https://acme.example" },
  createdAt: at,
  updatedAt: at,
});
const keyword = keywordV1.Keyword.fromPartial({
  id: "kw_01JD8W3B8C7D6E5F4G3H2J1K0L",
  projectId,
  groupId: "kwg_01JD8W3C9D8E7F6G5H4J3K2L1M",
  value: "Acme",
  sources: [commonV1.Source.SOURCE_X, commonV1.Source.SOURCE_REDDIT],
  aliases: ["Acme Corp"],
  excludedTerms: ["acme anvil"],
  filters: { languages: ["en"] },
  active: true,
  createdAt: at,
  updatedAt: at,
});
const group = keywordV1.KeywordGroup.fromPartial({ id: keyword.groupId, projectId, name: "My brand", order: 0, isDefault: true, keywordCount: 1, createdAt: at, updatedAt: at });
const mention = mentionV1.Mention.fromPartial({
  id: "men_01JD8W4D0E9F8G7H6J5K4L3M2N",
  projectId,
  source: commonV1.Source.SOURCE_REDDIT,
  sourceId: "t3_1abcde",
  url: "https://www.reddit.com/r/selfhosted/comments/1abcde/",
  title: "Acme or Globex?",
  text: "Thinking of moving to Acme: anyone tried it?",
  author: { id: "t2_9xyz", handle: "bob", name: "bob", followers: "1250" },
  publishedAt: at,
  lang: "en",
  metrics: { likes: "126", replies: "14", shares: "0", views: "0" },
  keywordIds: [keyword.id],
  groupIds: [group.id],
  matches: [{ keywordId: keyword.id, term: "Acme", field: "text", start: 22, end: 26 }],
  sentiment: { label: "neutral", score: 0, method: "lexicon" },
  status: mentionV1.MentionStatus.MENTION_STATUS_OPEN,
  collectedAt: at,
  matchedAt: at,
  updatedAt: at,
});
const triaged = { ...mention, status: mentionV1.MentionStatus.MENTION_STATUS_DONE, history: [{ field: "status", from: "open", to: "done", byUserId: project.ownerId, at }] };
const page = { organizationUrn: "urn:li:organization:2414183", name: "Acme Corp" };
const integration = integrationV1.LinkedinIntegration.fromPartial({ projectId, status: integrationV1.LinkedinStatus.LINKEDIN_STATUS_CONNECTED, pages: [page], page, connectedAt: at, lastSyncAt: at, tokenExpiresAt: new Date("2027-01-19T10:00:00.000Z") });
const disconnected = integrationV1.LinkedinIntegration.fromPartial({ projectId, status: integrationV1.LinkedinStatus.LINKEDIN_STATUS_DISCONNECTED, lastSyncAt: at });

const names = { keywords: [{ keywordId: keyword.id, value: keyword.value, groupId: group.id }], groups: [{ groupId: group.id, name: group.name }] };

/** Each type's example event: the data its producer stages. */
const EXAMPLES: Record<WebhookEventType, Record<string, unknown>> = {
  "project.created": { projectId, workspaceId, project },
  "project.updated": { projectId, workspaceId, fields: ["name"], project },
  "project.archived": { projectId, workspaceId, project: { ...project, status: commonV1.ProjectStatus.PROJECT_STATUS_ARCHIVED, archivedAt: at } },
  "keyword.created": { projectId, workspaceId, keyword },
  "keyword.updated": { projectId, workspaceId, fields: ["aliases"], keyword },
  "keyword.deactivated": { projectId, workspaceId, fields: ["active"], keyword: { ...keyword, active: false, deactivatedAt: at } },
  "keyword_group.created": { projectId, workspaceId, group: { ...group, name: "Rivals", isDefault: false, order: 2, keywordCount: 0 } },
  "keyword_group.updated": { projectId, workspaceId, fields: ["name"], group: { ...group, name: "Rivals", isDefault: false, order: 2 } },
  "keyword_group.deleted": { projectId, workspaceId, group: { ...group, name: "Rivals", isDefault: false, order: 2, keywordCount: 0 } },
  "mention.created": { projectId, workspaceId, ...names, mention },
  "mention.updated": { projectId, workspaceId, fields: ["status"], byUserId: project.ownerId, mention: triaged },
  "integration.linkedin.connected": { projectId, workspaceId, integration: { ...integration, lastSyncAt: undefined } },
  "integration.linkedin.disconnected": { projectId, workspaceId, reason: "disconnected", integration: disconnected },
  "integration.linkedin.synced": { projectId, workspaceId, postsFound: 3, integration },
};

const SUMMARIES: Record<WebhookEventType, string> = {
  "project.created": "A project was created.",
  "project.updated": "A project changed (its name, settings, status or public dashboard).",
  "project.archived": "A project was archived.",
  "keyword.created": "A keyword was created.",
  "keyword.updated": "A keyword changed (its value, aliases, filters, sources or group).",
  "keyword.deactivated": "A keyword was deactivated: it no longer matches, its mentions stay.",
  "keyword_group.created": "A keyword group was created.",
  "keyword_group.updated": "A keyword group was renamed or reordered.",
  "keyword_group.deleted": "A keyword group was deleted (data: the group as the delete answered it).",
  "mention.created": "A post matched keywords of a project: a new mention.",
  "mention.updated": "A mention's status or category changed.",
  "integration.linkedin.connected": "A LinkedIn Page was connected to a project.",
  "integration.linkedin.disconnected": "A project's LinkedIn connection ended.",
  "integration.linkedin.synced": "A project's LinkedIn Page was synced.",
};

const CONTEXTS: Record<WebhookEventType, z.ZodType> = {
  "project.created": plain,
  "project.updated": update,
  "project.archived": plain,
  "keyword.created": plain,
  "keyword.updated": update,
  "keyword.deactivated": update,
  "keyword_group.created": plain,
  "keyword_group.updated": update,
  "keyword_group.deleted": plain,
  "mention.created": z.object({
    ...workspace,
    keywords: z.array(z.object({ id: z.string(), value: z.string(), groupId: z.string() })).describe("The keywords the mention matched, by name (as the mention service last heard them)."),
    groups: z.array(z.object({ id: z.string(), name: z.string() })).describe("Their groups, by name."),
  }),
  "mention.updated": z.object({ ...workspace, ...changed, byUserId: z.string().describe("Who changed it.") }),
  "integration.linkedin.connected": plain,
  "integration.linkedin.disconnected": z.object({
    ...workspace,
    reason: z.string().describe("disconnected (the owner asked), project_archived, account_deactivated or reauthorization_required (LinkedIn refused the authorization)."),
  }),
  "integration.linkedin.synced": z.object({ ...workspace, postsFound: z.number().int().describe("New posts the sync found.") }),
};

const dataSchemaOf = (type: WebhookEventType): z.ZodType => {
  if (type.startsWith("project.")) return projectDataSchema;
  if (type.startsWith("keyword_group.")) return keywordGroupSchema;
  if (type.startsWith("keyword.")) return keywordSchema;
  if (type.startsWith("mention.")) return mentionWithHistorySchema;
  return linkedinIntegrationDataSchema;
};

/** The named schema's id (components.schemas) of a type's data. */
export const webhookDataComponentId = (type: WebhookEventType): string => {
  const id = resourceSchemas.get(dataSchemaOf(type))?.id;
  if (!id) throw new Error(`the data of ${type} is not a registered resource schema`);
  return id;
};

/** A type's whole example body: its example event as a consumer decodes it, through the fan-out's payload code. */
const exampleOf = (type: WebhookEventType): WebhookPayloadDoc["example"] => {
  const catalog = (DELIVERABLE_CATALOGS as ReadonlyArray<AnyEventCatalog>).find((c) => isEventOf(c, type));
  const published = JSON.parse(JSON.stringify(EXAMPLES[type])) as unknown;
  const cloudEvent = { specversion: "1.0", id: "evt_example", source: catalog?.source ?? "", type, time: at.toISOString(), datacontenttype: "application/json", data: published } as CloudEvent;
  const decoded = catalog && decodeEvent(catalog, cloudEvent);
  if (!decoded) throw new Error(`${type} is in no deliverable catalog`);
  const body = deliverableOf({ ...decoded, published } as DeliverableCatalogEvent, { publicUrl }).body();
  return { type, timestamp: at.toISOString(), data: body.data, context: body.context };
};

export const webhookPayloadDoc = (type: WebhookEventType): WebhookPayloadDoc => ({
  summary: SUMMARIES[type],
  data: dataSchemaOf(type),
  context: CONTEXTS[type],
  example: exampleOf(type),
});
