import type { ServerResponse } from "node:http";
import { bearerToken, requestTarget, sendJson } from "./http";
import type { IssuedToken, LinkedinAuth } from "./linkedin-auth";
import type { LinkedinAction, LinkedinContent } from "./linkedin-content";
import { organizationByUrn, SIM_LINKEDIN_ORGANIZATIONS } from "./linkedin-members";
import type { SimRequest } from "./platform-simulator";
import type { SimWorld } from "./world";

// LinkedIn's versioned REST API (Community Management): every call needs an issued Bearer token, a
// `LinkedIn-Version: YYYYMM` header and `X-Restli-Protocol-Version: 2.0.0`; errors carry LinkedIn's
// `{status, serviceErrorCode, code, message}` body. Rest.li 2.0 query syntax: `List(A,B)` and
// `(start:1,end:2)`, URNs URL-encoded in paths and queries.

const RETENTION_MS = 60 * 24 * 3_600_000;
const ACTIONS: readonly LinkedinAction[] = ["SHARE_MENTION", "COMMENT"];

const linkedinError = (res: ServerResponse, status: number, code: string, message: string, serviceErrorCode?: number, headers: Record<string, string> = {}) =>
  sendJson(res, status, { status, ...(serviceErrorCode !== undefined ? { serviceErrorCode } : {}), code, message }, headers);

const restliList = (value: string | null): string[] | undefined => {
  const m = /^List\(([^()]*)\)$/.exec(value ?? "");
  return m ? (m[1] ?? "").split(",").filter(Boolean) : undefined;
};

const restliRange = (value: string | null): { start: number; end: number } | undefined => {
  const m = /^\(start:(\d+),end:(\d+)\)$/.exec(value ?? "");
  return m ? { start: Number(m[1]), end: Number(m[2]) } : undefined;
};

const paging = (q: URLSearchParams, fallbackCount: number): { start: number; count: number } | undefined => {
  const start = Number(q.get("start") ?? 0);
  const count = Number(q.get("count") ?? fallbackCount);
  return Number.isInteger(start) && start >= 0 && Number.isInteger(count) && count >= 1 && count <= 100 ? { start, count } : undefined;
};

export const linkedinRest = (world: SimWorld, auth: LinkedinAuth, content: LinkedinContent) => {
  const acls = (res: ServerResponse, q: URLSearchParams, who: IssuedToken) => {
    if (q.get("q") !== "roleAssignee") return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "q must be roleAssignee", 100);
    const page = paging(q, 10);
    if (!page) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "start and count must be integers (count 1-100)", 100);
    const role = q.get("role");
    const state = q.get("state");
    const all = who.member.administers
      .filter(() => (!role || role === "ADMINISTRATOR") && (!state || state === "APPROVED"))
      .map((organization) => ({ roleAssignee: who.member.personUrn, role: "ADMINISTRATOR", state: "APPROVED", organization }));
    sendJson(res, 200, { paging: { start: page.start, count: page.count, total: all.length, links: [] }, elements: all.slice(page.start, page.start + page.count) });
  };

  const organization = (res: ServerResponse, id: string) => {
    const org = SIM_LINKEDIN_ORGANIZATIONS.find((o) => String(o.id) === id);
    if (!org) return linkedinError(res, 404, "NOT_FOUND", `Organization ${id} not found`, 100);
    sendJson(res, 200, { id: org.id, localizedName: org.localizedName, vanityName: org.vanityName, name: { localized: { en_US: org.localizedName }, preferredLocale: { country: "US", language: "en" } } });
  };

  const notifications = (res: ServerResponse, q: URLSearchParams, who: IssuedToken, rawQuery: string) => {
    // Rest.li's structural characters stay as they are: `List%28...` is not a list to LinkedIn.
    if (/[?&](actions|timeRange)=%28|[?&]actions=List%28/i.test(rawQuery)) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "Rest.li parentheses, commas and colons must not be percent-encoded", 100);
    if (q.get("q") !== "criteria") return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "q must be criteria", 100);
    const entity = q.get("organizationalEntity") ?? "";
    if (!organizationByUrn(entity)) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "organizationalEntity must be an organization URN", 100);
    if (!who.member.administers.includes(entity))
      return linkedinError(res, 403, "ACCESS_DENIED", `Not enough permissions to access: organizationalEntityNotifications for ${entity}`, 100);
    const actions = restliList(q.get("actions"));
    if (!actions?.length || actions.some((a) => !ACTIONS.includes(a as LinkedinAction))) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "actions must be List(...) of SHARE_MENTION, COMMENT", 100);
    const now = world.now();
    const range = q.has("timeRange") ? restliRange(q.get("timeRange")) : { start: now - RETENTION_MS, end: now + 1 };
    if (!range || range.end <= range.start) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "timeRange must be (start:<epoch ms>,end:<epoch ms>) with start before end", 100);
    if (range.start < now - RETENTION_MS - 60_000) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "timeRange start must be within the last 60 days", 100);
    const page = paging(q, 10);
    if (!page) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "start and count must be integers (count 1-100)", 100);
    const all = content.notifications(entity, range.start, range.end, actions as LinkedinAction[]);
    const elements: unknown[] = all.slice(page.start, page.start + page.count);
    if (world.takeMalformed("linkedin")) elements.unshift({ action: "SHARE_MENTION", organizationalEntity: entity, lastModifiedAt: "recently" });
    sendJson(res, 200, { paging: { start: page.start, count: page.count, total: all.length, links: [] }, elements });
  };

  const post = (res: ServerResponse, urn: string) => {
    const share = content.share(urn);
    if (!share) return linkedinError(res, 404, "NOT_FOUND", `Post ${urn} not found`, 100);
    sendJson(res, 200, {
      id: share.urn,
      author: share.author,
      commentary: share.text,
      createdAt: share.createdAtMs,
      publishedAt: share.createdAtMs,
      lastModifiedAt: share.createdAtMs,
      lifecycleState: "PUBLISHED",
      visibility: "PUBLIC",
      distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
      isReshareDisabledByAuthor: false,
    });
  };

  const comments = (res: ServerResponse, urn: string, q: URLSearchParams) => {
    if (!content.share(urn)) return linkedinError(res, 404, "NOT_FOUND", `Post ${urn} not found`, 100);
    const page = paging(q, 10);
    if (!page) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "start and count must be integers (count 1-100)", 100);
    const all = content.comments(urn);
    const elements = all.slice(page.start, page.start + page.count).map((c) => ({
      id: c.id,
      commentUrn: c.urn,
      actor: c.actor,
      message: { text: c.text, attributes: [] },
      created: { time: c.createdAtMs, actor: c.actor },
      lastModified: { time: c.createdAtMs, actor: c.actor },
      object: c.object,
    }));
    sendJson(res, 200, { paging: { start: page.start, count: page.count, total: all.length, links: [] }, elements });
  };

  return ({ req, res, url, path }: SimRequest): void => {
    const who = auth.tokenInfo(bearerToken(req.headers.authorization));
    if (!who) return linkedinError(res, 401, "INVALID_ACCESS_TOKEN", "Invalid access token", 65600);
    const version = req.headers["linkedin-version"];
    if (typeof version !== "string" || !version) return linkedinError(res, 400, "VERSION_MISSING", "A version must be present. Please specify a version by adding the LinkedIn-Version header.");
    if (!/^\d{6}(\.\d{2})?$/.test(version)) return linkedinError(res, 426, "NONEXISTENT_VERSION", `Requested version ${version} is not active`);
    if (req.headers["x-restli-protocol-version"] !== "2.0.0") return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "X-Restli-Protocol-Version: 2.0.0 is required");
    const fault = world.takeFault("linkedin", requestTarget(path, url));
    if (fault) {
      if (fault.status === 429)
        return sendJson(res, 429, { status: 429, message: "Resource level throttle APPLICATION DAY limit for calls to this resource is reached." }, fault.retryAfterSeconds > 0 ? { "retry-after": String(fault.retryAfterSeconds) } : {});
      if (fault.status === 403) return linkedinError(res, 403, "ACCESS_DENIED", `Not enough permissions to access: ${path}`, 100);
      return linkedinError(res, fault.status, fault.status >= 500 ? "INTERNAL_SERVER_ERROR" : "ILLEGAL_ARGUMENT", fault.status >= 500 ? "Internal Server Error" : "Bad Request");
    }
    if (req.method !== "GET") return linkedinError(res, 405, "METHOD_NOT_ALLOWED", "Method not allowed");
    const q = url.searchParams;
    // Rest.li 2.0 wants URNs encoded wherever they appear in a URL; an unencoded one is refused.
    if (/urn:li:/.test(path) || /=urn:li:/.test(url.search)) return linkedinError(res, 400, "ILLEGAL_ARGUMENT", "URNs in the URL must be URL-encoded (urn%3Ali%3A...)", 100);
    if (path === "/organizationAcls") return acls(res, q, who);
    if (path === "/organizationalEntityNotifications") return notifications(res, q, who, url.search);
    const org = /^\/organizations\/([^/]+)$/.exec(path);
    if (org?.[1]) return organization(res, decodeURIComponent(org[1]));
    const postPath = /^\/posts\/([^/]+)$/.exec(path);
    if (postPath?.[1]) return post(res, decodeURIComponent(postPath[1]));
    const commentsPath = /^\/socialActions\/([^/]+)\/comments$/.exec(path);
    if (commentsPath?.[1]) return comments(res, decodeURIComponent(commentsPath[1]), q);
    linkedinError(res, 404, "NOT_FOUND", `No resource at ${path}`);
  };
};
