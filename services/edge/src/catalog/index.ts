import type { Operation } from "./operation";
import { accountOperations } from "./operations/account";
import { memberOperations } from "./operations/members";
import { projectOperations } from "./operations/projects";

/** Every operation of the API. REST routes, MCP tools and the OpenAPI document are built from this list. */
export const OPERATIONS: readonly Operation[] = [...projectOperations, ...memberOperations, ...accountOperations];

export * from "./operation";
