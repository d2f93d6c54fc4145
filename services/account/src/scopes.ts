// The scope vocabulary of the API (spec section 5): each family has separate read and write scopes;
// `mcp` only opens the MCP connection and never stands in for a tool's own scope.

export const SCOPE_FAMILIES = ["projects", "keywords", "mentions", "alerts", "integrations", "usage", "webhooks", "account"] as const;

export const ALL_SCOPES: readonly string[] = [...SCOPE_FAMILIES.flatMap((f) => [`${f}:read`, `${f}:write`]), "mcp"];

export const READ_ONLY_SCOPES: readonly string[] = ALL_SCOPES.filter((s) => s.endsWith(":read"));

export const isScope = (s: string): boolean => ALL_SCOPES.includes(s);
