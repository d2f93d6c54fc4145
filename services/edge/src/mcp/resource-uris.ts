import { isId } from "@earshot/platform";

// The MCP resources' addresses, in one place for the reads (resources/read), the listings and the
// subscriptions (resources/subscribe), so the three always agree on what a URI names.
//
//   earshot://projects/{projectId}            a project (get_project)
//   earshot://projects/{projectId}/mentions   its newest mentions (list_mentions)
//   earshot://views/{viewId}/mentions         the newest mentions of a saved view (list_mentions with viewId)
//   earshot://mentions/{mentionId}            a mention with its history (get_mention)
//
// The two mentions resources are the ones a client may subscribe to.

export type ResourceAddress =
  | { kind: "project"; projectId: string }
  | { kind: "project-mentions"; projectId: string }
  | { kind: "view-mentions"; viewId: string }
  | { kind: "mention"; mentionId: string };

export const RESOURCE_SCHEME = "earshot:";

export const RESOURCE_TEMPLATES = [
  { uriTemplate: "earshot://projects/{projectId}", name: "project", title: "A project", kind: "project" },
  { uriTemplate: "earshot://projects/{projectId}/mentions", name: "project-mentions", title: "A project's newest mentions", kind: "project-mentions" },
  { uriTemplate: "earshot://views/{viewId}/mentions", name: "view-mentions", title: "A saved view's newest mentions", kind: "view-mentions" },
  { uriTemplate: "earshot://mentions/{mentionId}", name: "mention", title: "A mention with its history", kind: "mention" },
] as const;

/** The URI of a resource. */
export const resourceUri = (address: ResourceAddress): string => {
  switch (address.kind) {
    case "project":
      return `earshot://projects/${address.projectId}`;
    case "project-mentions":
      return `earshot://projects/${address.projectId}/mentions`;
    case "view-mentions":
      return `earshot://views/${address.viewId}/mentions`;
    case "mention":
      return `earshot://mentions/${address.mentionId}`;
  }
};

/** What `uri` names, or undefined when it names no Earshot resource (an unknown form or an id of the wrong shape). */
export const parseResourceUri = (uri: string): ResourceAddress | undefined => {
  const match = /^earshot:\/\/([a-z]+)\/([^/?#]+)(\/mentions)?$/.exec(uri);
  if (!match) return undefined;
  const [, collection, id, mentions] = match as unknown as [string, string, string, string | undefined];
  if (collection === "projects" && isId("prj", id)) return mentions ? { kind: "project-mentions", projectId: id } : { kind: "project", projectId: id };
  if (collection === "views" && mentions && isId("view", id)) return { kind: "view-mentions", viewId: id };
  if (collection === "mentions" && !mentions && isId("men", id)) return { kind: "mention", mentionId: id };
  return undefined;
};

/** Whether a client may subscribe to the resource: the two mentions lists. */
export const isSubscribable = (address: ResourceAddress): boolean => address.kind === "project-mentions" || address.kind === "view-mentions";
