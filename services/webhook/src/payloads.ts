import type { EventsOf } from "@earshot/platform";
import {
  presentKeyword,
  presentKeywordGroup,
  presentLinkedinIntegrationData,
  presentMentionWithHistory,
  presentProjectData,
} from "@earshot/contracts/resources";
import type { DELIVERABLE_CATALOGS } from "./deliverable";
import type { DeliverableEvent } from "./fields";

// What a delivery of each deliverable event carries: `data`, the resource as the API presents it at the
// moment of the event (the event carries the resource's gRPC message, presented here with the presenter
// the edge answers with, so the two cannot differ), less what depends on the caller (a project's `role`,
// the LinkedIn sync allowance); and `context`, what the event says beside the resource (the workspace, which
// fields changed, the names a mention matched, why a connection ended).

/** A decoded event of the deliverable catalogs, as the consumer hands it over. */
export type DeliverableCatalogEvent = EventsOf<typeof DELIVERABLE_CATALOGS>;

/** Where the API is: a project's share URL is on it. */
export interface PayloadOptions {
  publicUrl: string;
}

type Body = ReturnType<DeliverableEvent["body"]>;

/** `changed` names what an update changed; created, deleted and archived events leave it out. */
const changedOf = (fields: readonly string[]): { changed?: string[] } => (fields.length > 0 ? { changed: [...fields] } : {});

const bodyOf = (event: DeliverableCatalogEvent, options: PayloadOptions): Body => {
  switch (event.type) {
    case "project.created":
    case "project.archived":
      return { data: presentProjectData(event.data.project, options.publicUrl), context: { workspaceId: event.data.workspaceId } };
    case "project.updated":
      return { data: presentProjectData(event.data.project, options.publicUrl), context: { workspaceId: event.data.workspaceId, ...changedOf(event.data.fields) } };
    case "keyword.created":
    case "keyword.updated":
    case "keyword.deactivated":
      return { data: presentKeyword(event.data.keyword), context: { workspaceId: event.data.workspaceId, ...changedOf(event.data.fields) } };
    case "keyword_group.created":
    case "keyword_group.updated":
    case "keyword_group.deleted":
      return { data: presentKeywordGroup(event.data.group), context: { workspaceId: event.data.workspaceId, ...changedOf(event.data.fields) } };
    case "mention.created":
      return {
        data: presentMentionWithHistory(event.data.mention),
        context: {
          workspaceId: event.data.workspaceId,
          keywords: event.data.keywords.map((k) => ({ id: k.keywordId, value: k.value, groupId: k.groupId })),
          groups: event.data.groups.map((g) => ({ id: g.groupId, name: g.name })),
        },
      };
    case "mention.updated":
      return { data: presentMentionWithHistory(event.data.mention), context: { workspaceId: event.data.workspaceId, ...changedOf(event.data.fields), byUserId: event.data.byUserId } };
    case "integration.linkedin.connected":
      return { data: presentLinkedinIntegrationData(event.data.integration), context: { workspaceId: event.data.workspaceId } };
    case "integration.linkedin.disconnected":
      return { data: presentLinkedinIntegrationData(event.data.integration), context: { workspaceId: event.data.workspaceId, reason: event.data.reason } };
    case "integration.linkedin.synced":
      return { data: presentLinkedinIntegrationData(event.data.integration), context: { workspaceId: event.data.workspaceId, postsFound: event.data.postsFound } };
    default:
      throw new Error(`${event.type} is not a deliverable event type`);
  }
};

/** The event as the fan-out takes it: its envelope, the workspace and project it is about, and its body. */
export const deliverableOf = (event: DeliverableCatalogEvent, options: PayloadOptions): DeliverableEvent => ({
  id: event.id,
  type: event.type,
  time: event.time,
  data: { workspaceId: "workspaceId" in event.data ? event.data.workspaceId : "", projectId: event.data.projectId },
  body: () => bodyOf(event, options),
});
