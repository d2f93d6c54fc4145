import type { Operation } from "./operation";
import { accountOperations } from "./operations/account";
import { categoryOperations } from "./operations/categories";
import { keywordGroupOperations } from "./operations/keyword-groups";
import { keywordOperations } from "./operations/keywords";
import { linkedinOperations } from "./operations/linkedin";
import { memberOperations } from "./operations/members";
import { mentionExportOperations } from "./operations/mention-export";
import { mentionViewOperations } from "./operations/mention-views";
import { mentionOperations } from "./operations/mentions";
import { projectOperations } from "./operations/projects";
import { sourceHealthOperations } from "./operations/source-health";

/** Every operation of the API. REST routes, MCP tools and the OpenAPI document are built from this list. */
export const OPERATIONS: readonly Operation[] = [
  ...projectOperations,
  ...memberOperations,
  ...keywordOperations,
  ...keywordGroupOperations,
  ...mentionOperations,
  ...mentionExportOperations,
  ...categoryOperations,
  ...mentionViewOperations,
  ...accountOperations,
  ...sourceHealthOperations,
  ...linkedinOperations,
];

export * from "./operation";
