import type { z } from "zod";
import type { CollectorDeps } from "../collectors/collector-deps";
import { ProviderMalformed } from "../collectors/provider-errors";
import type { LinkedinClient, LinkedinPageInfo, LinkedinTokens } from "../domain/linkedin-client";
import { type LinkedinCollection, linkedinAclSchema, linkedinCollectionSchema, linkedinOrganizationSchema, linkedinTokenSchema } from "./linkedin-wire";

export type { LinkedinPageInfo, LinkedinTokens };

// The LinkedIn calls Earshot makes, all through ProviderHttp (so 429s, 5xx retries and rejections are
// handled as for every platform): the member's authorization (3-legged OAuth on the www base URL) and the
// Community Management API (the REST base URL) with the headers LinkedIn requires on every call:
// `LinkedIn-Version` (settings) and `X-Restli-Protocol-Version: 2.0.0`. URNs go URL-encoded; Rest.li's
// own `List(...)` and `(start:..,end:..)` syntax does not.

export const LINKEDIN_SCOPES = ["r_organization_social", "rw_organization_admin"] as const;

/** LinkedIn keeps notifications this long. */
export const LINKEDIN_RETENTION_MS = 60 * 24 * 3_600_000;

export interface LinkedinNotificationsQuery {
  accessToken: string;
  organizationUrn: string;
  startMs: number;
  endMs: number;
  start: number;
  count: number;
  signal?: AbortSignal;
}

const MAX_ACL_PAGES = 10;

const parsed = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ProviderMalformed("linkedin", `${what}: ${issue ? `${issue.path.map(String).join(".")} ${issue.message}` : "unreadable"}`);
};

export class LinkedinApi implements LinkedinClient {
  constructor(private readonly deps: CollectorDeps) {}

  get configured(): boolean {
    return Boolean(this.deps.settings.EARSHOT_LINKEDIN_CLIENT_ID && this.deps.settings.EARSHOT_LINKEDIN_CLIENT_SECRET);
  }

  /** The LinkedIn authorization page for this state and redirect URI. */
  authorizationUrl(input: { state: string; redirectUri: string }): string {
    const params: Record<string, string> = {
      response_type: "code",
      client_id: this.deps.settings.EARSHOT_LINKEDIN_CLIENT_ID ?? "",
      redirect_uri: input.redirectUri,
      state: input.state,
      scope: LINKEDIN_SCOPES.join(" "),
    };
    // encodeURIComponent, not URLSearchParams: LinkedIn documents the scope's spaces as %20.
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join("&");
    return `${this.deps.settings.EARSHOT_LINKEDIN_AUTH_URL}/oauth/v2/authorization?${query}`;
  }

  /** Exchanges an authorization code (ProviderRejected on a bad code: LinkedIn answers 400 invalid_grant). */
  async exchangeCode(input: { code: string; redirectUri: string; signal?: AbortSignal }): Promise<LinkedinTokens> {
    return this.token({ grant_type: "authorization_code", code: input.code, redirect_uri: input.redirectUri }, input.signal);
  }

  /** A new access token from a refresh token (LinkedIn keeps the refresh token's first expiry). */
  async refreshTokens(input: { refreshToken: string; signal?: AbortSignal }): Promise<LinkedinTokens> {
    return this.token({ grant_type: "refresh_token", refresh_token: input.refreshToken }, input.signal);
  }

  /** The Pages the token's member administers, with their names. */
  async administeredPages(accessToken: string, signal?: AbortSignal): Promise<LinkedinPageInfo[]> {
    const urns: string[] = [];
    for (let page = 0, start = 0; page < MAX_ACL_PAGES; page++) {
      const list = await this.collection(`/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&start=${start}&count=100`, accessToken, signal);
      for (const raw of list.elements) {
        const acl = linkedinAclSchema.safeParse(raw);
        if (!acl.success) {
          this.deps.logger.warn({ source: "linkedin", detail: acl.error.issues[0] }, "linkedin: skipped a malformed organizationAcl");
          continue;
        }
        if (acl.data.role === "ADMINISTRATOR" && acl.data.state === "APPROVED" && !urns.includes(acl.data.organization)) urns.push(acl.data.organization);
      }
      start += list.elements.length;
      if (!list.elements.length || list.paging?.total === undefined || start >= list.paging.total) break;
    }
    const pages: LinkedinPageInfo[] = [];
    for (const organizationUrn of urns) {
      const id = organizationUrn.slice("urn:li:organization:".length);
      const org = parsed(linkedinOrganizationSchema, await this.get(`/organizations/${encodeURIComponent(id)}`, accessToken, signal), "organization");
      pages.push({ organizationUrn, name: org.localizedName });
    }
    return pages;
  }

  /** One page of an organization's SHARE_MENTION and COMMENT notifications in [startMs, endMs). */
  notifications(query: LinkedinNotificationsQuery): Promise<LinkedinCollection> {
    const path =
      `/organizationalEntityNotifications?q=criteria&organizationalEntity=${encodeURIComponent(query.organizationUrn)}` +
      `&actions=List(SHARE_MENTION,COMMENT)&timeRange=(start:${Math.floor(query.startMs)},end:${Math.floor(query.endMs)})&start=${query.start}&count=${query.count}`;
    return this.collection(path, query.accessToken, query.signal);
  }

  /** A post by URN (`urn:li:share:…` or `urn:li:ugcPost:…`), as LinkedIn sends it. */
  post(accessToken: string, urn: string, signal?: AbortSignal): Promise<unknown> {
    return this.get(`/posts/${encodeURIComponent(urn)}`, accessToken, signal);
  }

  /** One page of the comments on a post. */
  comments(accessToken: string, postUrn: string, start: number, count: number, signal?: AbortSignal): Promise<LinkedinCollection> {
    return this.collection(`/socialActions/${encodeURIComponent(postUrn)}/comments?start=${start}&count=${count}`, accessToken, signal);
  }

  private async collection(path: string, accessToken: string, signal?: AbortSignal): Promise<LinkedinCollection> {
    return parsed(linkedinCollectionSchema, await this.get(path, accessToken, signal), path.split("?")[0] ?? path);
  }

  private async get(path: string, accessToken: string, signal?: AbortSignal): Promise<unknown> {
    const res = await this.deps.http.request({
      source: "linkedin",
      url: `${this.deps.settings.EARSHOT_LINKEDIN_API_URL}${path}`,
      headers: { authorization: `Bearer ${accessToken}`, "LinkedIn-Version": this.deps.settings.EARSHOT_LINKEDIN_VERSION, "X-Restli-Protocol-Version": "2.0.0", accept: "application/json" },
      ...(signal ? { signal } : {}),
    });
    return res.json;
  }

  private async token(grant: Record<string, string>, signal?: AbortSignal): Promise<LinkedinTokens> {
    const res = await this.deps.http.request({
      source: "linkedin",
      url: `${this.deps.settings.EARSHOT_LINKEDIN_AUTH_URL}/oauth/v2/accessToken`,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ ...grant, client_id: this.deps.settings.EARSHOT_LINKEDIN_CLIENT_ID ?? "", client_secret: this.deps.settings.EARSHOT_LINKEDIN_CLIENT_SECRET ?? "" }).toString(),
      ...(signal ? { signal } : {}),
    });
    const t = parsed(linkedinTokenSchema, res.json, "token answer");
    return {
      accessToken: t.access_token,
      expiresInSeconds: t.expires_in,
      ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
      ...(t.refresh_token_expires_in !== undefined ? { refreshTokenExpiresInSeconds: t.refresh_token_expires_in } : {}),
      scope: t.scope,
    };
  }
}
