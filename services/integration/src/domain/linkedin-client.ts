// What the LinkedIn connection needs of LinkedIn: the member's authorization (3-legged OAuth) and the
// Pages they administer. The HTTP client (`linkedin/linkedin-api.ts`) is one implementation; the domain
// depends on this port only.

export interface LinkedinTokens {
  accessToken: string;
  expiresInSeconds: number;
  refreshToken?: string;
  refreshTokenExpiresInSeconds?: number;
  scope: string;
}

export interface LinkedinPageInfo {
  organizationUrn: string;
  name: string;
}

export interface LinkedinClient {
  /** Whether the application's client credentials are set (connecting is possible). */
  readonly configured: boolean;
  authorizationUrl(input: { state: string; redirectUri: string }): string;
  /** Exchanges an authorization code; a refused code is a ProviderRejected. */
  exchangeCode(input: { code: string; redirectUri: string; signal?: AbortSignal }): Promise<LinkedinTokens>;
  /** A new access token; an expired or revoked refresh token is a ProviderRejected (400 invalid_grant). */
  refreshTokens(input: { refreshToken: string; signal?: AbortSignal }): Promise<LinkedinTokens>;
  administeredPages(accessToken: string, signal?: AbortSignal): Promise<LinkedinPageInfo[]>;
}
