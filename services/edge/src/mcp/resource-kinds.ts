import type { ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { RESOURCE_TEMPLATES, type ResourceAddress } from "./resource-uris";

// What resources/list and resources/templates/list say of each kind of resource.

export const JSON_MIME_TYPE = "application/json";

const DESCRIPTIONS: Record<ResourceAddress["kind"], string> = {
  project: "A project as get_project reads it (projects:read).",
  "project-mentions": "A project's 20 newest mentions, newest published first, as list_mentions reads them with only projectId (mentions:read). Subscribable.",
  "view-mentions": "The 20 newest mentions matching a saved view, as list_mentions reads them with the view's projectId and viewId (mentions:read). Subscribable.",
  mention: "A mention with its triage history, as get_mention reads it (mentions:read).",
};

export const resourceDescription = (kind: ResourceAddress["kind"]): string => DESCRIPTIONS[kind];

/** The four URI templates, built once. */
export const RESOURCE_TEMPLATE_LIST: ResourceTemplate[] = RESOURCE_TEMPLATES.map((t) => ({
  uriTemplate: t.uriTemplate,
  name: t.name,
  title: t.title,
  description: DESCRIPTIONS[t.kind],
  mimeType: JSON_MIME_TYPE,
}));
