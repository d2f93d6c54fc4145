import type { CollectorDeps } from "../collectors/collector-deps";

// PLACEHOLDER until the LinkedIn API client is written: the calls the connection flow and the collector make.

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

export class LinkedinApi {
  constructor(private readonly deps: CollectorDeps) {}

  get configured(): boolean {
    return Boolean(this.deps.settings.EARSHOT_LINKEDIN_CLIENT_ID && this.deps.settings.EARSHOT_LINKEDIN_CLIENT_SECRET);
  }

  /** The LinkedIn authorization page for this state and redirect URI. */
  authorizationUrl(_input: { state: string; redirectUri: string }): string {
    throw new Error("not written yet");
  }

  /** Exchanges an authorization code (ProviderRejected on a bad code). */
  exchangeCode(_input: { code: string; redirectUri: string; signal?: AbortSignal }): Promise<LinkedinTokens> {
    return Promise.reject(new Error("not written yet"));
  }

  /** The Pages the token's member administers, with their names. */
  administeredPages(_accessToken: string, _signal?: AbortSignal): Promise<LinkedinPageInfo[]> {
    return Promise.reject(new Error("not written yet"));
  }
}
