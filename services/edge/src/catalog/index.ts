import type { Operation } from "./operation";
import { accountOperations } from "./operations/account";
import { keywordGroupOperations } from "./operations/keyword-groups";
import { keywordOperations } from "./operations/keywords";
import { memberOperations } from "./operations/members";
import { projectOperations } from "./operations/projects";

/** Every operation of the API. REST routes, MCP tools and the OpenAPI document are built from this list. */
export const OPERATIONS: readonly Operation[] = [
  ...projectOperations,
  ...memberOperations,
  ...keywordOperations,
  ...keywordGroupOperations,
  ...accountOperations,
];

export * from "./operation";
