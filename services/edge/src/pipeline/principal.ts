import type { commonV1 } from "@earshot/proto";

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

/**
 * The Caller every gRPC call of the request carries (in metadata, never in the request): the principal's
 * identity and allowances with the memberships the edge's cache holds for it.
 */
export const callerFor = (p: Principal, memberships: commonV1.Membership[]): commonV1.Caller => ({
  userId: p.userId,
  workspaceId: p.workspaceId,
  email: p.email,
  memberships,
  allowances: { ...p.allowances },
});
