import { isTool, type Operation } from "../catalog/operation";

export const MCP_SCOPE = "mcp";

/** Scopes that change the account itself or its plan: a client gets them only by asking by name. */
const NEVER_BY_DEFAULT = ["account:write", "usage:write"];

/**
 * What an MCP client is told to ask for (the 401 challenge's `scope`, the protected resource metadata's
 * `scopes_supported`): the connection scope and the scopes of the tools, minus the account-changing
 * ones. Without such a hint, clients ask for every scope the server knows.
 */
export const defaultMcpScopes = (operations: readonly Operation[]): string[] => [
  MCP_SCOPE,
  ...[...new Set(operations.filter(isTool).map((op) => op.scope))].filter((s) => !NEVER_BY_DEFAULT.includes(s)).sort(),
];
