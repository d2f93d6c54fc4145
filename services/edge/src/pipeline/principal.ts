// Who a request acts for, whatever the credential (API key now, OAuth access token later).
export interface Principal {
  userId: string;
  workspaceId: string;
  email: string;
  scopes: string[];
  /** The API key id or OAuth token id: rate limits count per credential. */
  credentialId: string;
  credentialType: "api_key" | "oauth";
  /** OAuth access tokens are for one resource (`{origin}/mcp` or `{origin}/api/v1`); API keys for any. */
  audience?: string;
  allowances: {
    projects: number;
    keywords: number;
    seats: number;
    webhookDeliveriesPerDay: number;
    linkedinSyncsPerDay: number;
  };
}

/** The caller message every project-scoped RPC takes. */
export const callerOf = (p: Principal) => ({
  userId: p.userId,
  workspaceId: p.workspaceId,
  email: p.email,
  allowances: { projects: p.allowances.projects, seats: p.allowances.seats },
});
