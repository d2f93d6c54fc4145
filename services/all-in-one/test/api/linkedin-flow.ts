import { waitFor } from "../../../platform/src/testing/tmp";
import type { Actor, ApiResponse, Harness } from "./harness";
import { createKeyword, createProject, uniqueName } from "./world";

// The LinkedIn connection driven as its owner's browser drives it: the connect URL, the simulator's
// authorization page (GET, then its form POSTed), LinkedIn's redirect followed to Earshot's callback page.

export const ACME = "urn:li:organization:1001";
export const ACME_LABS = "urn:li:organization:1002";
export const GLOBEX = "urn:li:organization:2001";

export interface CallbackPage {
  status: number;
  html: string;
  headers: Headers;
  /** The callback URL LinkedIn sent the browser to (with state and code, or error). */
  url: string;
}

/** Signs in at LinkedIn as `member` and allows (or cancels): the URL LinkedIn redirects the browser to. */
export const authorizeAtLinkedin = async (connectUrl: string, member = "member-a", action: "allow" | "cancel" = "allow"): Promise<string> => {
  const page = await fetch(connectUrl);
  if (page.status !== 200) throw new Error(`LinkedIn's authorization page answered ${page.status}`);
  const target = new URL(connectUrl);
  const form = new URLSearchParams(target.searchParams);
  form.set("member", member);
  form.set("action", action);
  const decided = await fetch(`${target.origin}${target.pathname}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
  const location = decided.headers.get("location");
  if (decided.status !== 302 || !location) throw new Error(`LinkedIn's form answered ${decided.status}`);
  return location;
};

export const visit = async (url: string): Promise<CallbackPage> => {
  const res = await fetch(url, { redirect: "manual" });
  return { status: res.status, html: await res.text(), headers: res.headers, url };
};

export const connectUrlOf = async (h: Harness, owner: Actor, projectId: string): Promise<string> => {
  const res = await h.call("get_linkedin_connect_url", { projectId }, owner.key);
  if (res.status !== 200) throw new Error(`get_linkedin_connect_url failed: ${JSON.stringify(res.body)}`);
  return (res.body.data as { url: string }).url;
};

/** The whole authorization: connect URL, LinkedIn's page, the callback page. */
export const authorizeLinkedin = async (h: Harness, owner: Actor, projectId: string, member = "member-a"): Promise<CallbackPage> =>
  visit(await authorizeAtLinkedin(await connectUrlOf(h, owner, projectId), member));

export const selectPage = async (h: Harness, owner: Actor, projectId: string, organizationUrn = ACME): Promise<ApiResponse> =>
  h.call("select_linkedin_page", { projectId, organizationUrn }, owner.key);

/**
 * A project of `owner` with a keyword on LinkedIn and member-a's Acme Corp Page connected, synced once:
 * after that first sync the poller is free and due only in a poll interval, so the next sync_linkedin
 * answers at once. The sync counts against the owner's workspace.
 */
export const connectedProject = async (h: Harness, owner: Actor, keyword = uniqueName("Zephyr").replace(/\s+/g, "")): Promise<{ projectId: string; keyword: string }> => {
  const projectId = await createProject(h, owner);
  await createKeyword(h, owner, projectId, { value: keyword, sources: ["linkedin"] });
  const callback = await authorizeLinkedin(h, owner, projectId);
  if (callback.status !== 200) throw new Error(`callback page answered ${callback.status}: ${callback.html}`);
  const selected = await selectPage(h, owner, projectId);
  if (selected.status !== 200) throw new Error(`select_linkedin_page failed: ${JSON.stringify(selected.body)}`);
  const synced = await syncLinkedin(h, owner, projectId);
  if (synced.status !== 200) throw new Error(`sync_linkedin failed: ${JSON.stringify(synced.body)}`);
  return { projectId, keyword };
};

/**
 * sync_linkedin once the service collects LinkedIn for the project: until its keyword reached the
 * service and the scheduler's own poll has let go of the poller, a sync is refused with 409 (and not
 * counted), so it is asked again within a bounded time.
 */
export const syncLinkedin = async (h: Harness, owner: Actor, projectId: string): Promise<ApiResponse> => {
  let res: ApiResponse | undefined;
  await waitFor(async () => {
    res = await h.call("sync_linkedin", { projectId }, owner.key);
    return res.status !== 409;
  }, 10_000);
  return res!;
};
