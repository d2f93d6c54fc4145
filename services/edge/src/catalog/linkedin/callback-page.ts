import { integrationV1 } from "@earshot/proto";
import { isDomainError, type Logger } from "@earshot/platform";
import type { Request, Response } from "express";
import { checkCsrf, csrfToken, escapeHtml, sendPage } from "../../pages/html";
import { definePage } from "../../pages/page";
import { LINKEDIN_CALLBACK_PATH } from "./operations";
import { ownerContext } from "./owner-context";

// Where LinkedIn sends the owner's browser after the authorization page: not an operation (the browser
// carries no Bearer credential; the state, bound to the project and its owner, is the proof). It hands
// the state and the code (or LinkedIn's error) to the integration service and answers a small page:
// a form to choose the Page right there, or what went wrong. The form carries the page-choice token the
// callback issued (one use, expiring with the connect state) and the browser's CSRF token; posted back
// to the same path, it chooses the Page and answers what happens next. Agents keep select_linkedin_page.
// A refusal is a 4xx page, never a 500.

/** LinkedIn's parameters are short; anything longer is not theirs. */
const MAX_PARAMETER = 2_000;

const parameter = (req: Request, name: string): string | null => {
  const value = req.query[name];
  if (value === undefined) return "";
  if (typeof value !== "string" || value.length > MAX_PARAMETER) return null;
  return value;
};

const formField = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" && value.length <= MAX_PARAMETER ? value : "";
};

interface Page {
  organizationUrn: string;
  name: string;
}

const projectLabel = (name: string | undefined, projectId: string): string =>
  name ? `<strong>${escapeHtml(name)}</strong>` : `the project <code>${escapeHtml(projectId)}</code>`;

const apiHint = (projectId: string): string =>
  `<p>Agents and scripts choose with <code>select_linkedin_page</code>: <code>PATCH /api/v1/integrations/linkedin</code> with <code>{"projectId": "${escapeHtml(projectId)}", "organizationUrn": "…"}</code>.</p>`;

const choiceForm = (pages: Page[], choice: { token: string; expiresAt: Date | undefined }, csrf: string): string => {
  const until = choice.expiresAt ? ` It works once, until ${escapeHtml(choice.expiresAt.toISOString().slice(0, 16).replace("T", " "))} UTC; after that, connect LinkedIn again.` : " It works once.";
  const options = pages
    .map(
      (p, i) =>
        `<label class="choice" for="page-${i}"><input type="radio" id="page-${i}" name="organizationUrn" value="${escapeHtml(p.organizationUrn)}" required${pages.length === 1 ? " checked" : ""}> ${escapeHtml(p.name)}</label>`,
    )
    .join("\n");
  return `<form method="post" action="${LINKEDIN_CALLBACK_PATH}">
<fieldset><legend>Your LinkedIn Pages</legend>
${options}
</fieldset>
<input type="hidden" name="choice" value="${escapeHtml(choice.token)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<button type="submit">Collect from this Page</button>
</form>
<p>Choose the Page Earshot collects mentions and comments from.${until}</p>`;
};

const pagesList = (pages: Page[]): string =>
  pages.length === 0
    ? "<p>The LinkedIn member who authorized administers no Page, so there is nothing to choose. Authorize again as a Page administrator.</p>"
    : `<ul>${pages.map((p) => `<li>${escapeHtml(p.name)}: <code>${escapeHtml(p.organizationUrn)}</code></li>`).join("")}</ul>`;

/** A refusal of the integration service as a page: a rate limit keeps its 429, other refusals are the request's fault (400), anything else 503. */
const sendRefusal = (res: Response, logger: Logger, err: unknown, title: string, again: string): void => {
  if (isDomainError(err) && err.status < 500) {
    const detail = err.errors.length > 0 ? err.errors.map((e) => `${e.path} ${e.message}`).join("; ") : err.message;
    if (err.code === "rate_limited") res.setHeader("Retry-After", String(err.details.retryAfter ?? 1));
    return sendPage(res, err.code === "rate_limited" ? 429 : 400, title, `<p class="error" role="alert">${escapeHtml(detail)}</p>`);
  }
  logger.error({ err }, `${title}: the integration service could not answer`);
  sendPage(res, 503, "Try again later", `<p>Earshot could not complete this right now. ${again}</p>`);
};

const callbackPage = definePage({
  title: "Where LinkedIn sends the browser back",
  method: "GET",
  paths: [LINKEDIN_CALLBACK_PATH],
  handler: async (req, res, { backends, logger, secureCookies }) => {
    const input = { state: parameter(req, "state"), code: parameter(req, "code"), error: parameter(req, "error"), errorDescription: parameter(req, "error_description") };
    const malformed = Object.entries(input).find(([, v]) => v === null);
    if (malformed) {
      return sendPage(res, 400, "LinkedIn not connected", `<p class="error" role="alert">The ${escapeHtml(malformed[0])} parameter is malformed. Ask for a new connect URL and try again.</p>`);
    }
    let done;
    try {
      done = await backends.integration.completeLinkedinAuthorization({
        state: input.state ?? "",
        code: input.code ?? "",
        error: input.error ?? "",
        errorDescription: input.errorDescription ?? "",
      });
    } catch (err) {
      return sendRefusal(res, logger, err, "LinkedIn not connected", "Ask for a new connect URL and try again.");
    }
    const integration = done.integration;
    const pages = integration?.pages ?? [];
    const { projectName } = await ownerContext(backends, logger, done.ownerId, done.projectId);
    const project = projectLabel(projectName, done.projectId);
    const chosen = integration?.status === integrationV1.LinkedinStatus.LINKEDIN_STATUS_CONNECTED && integration.page;
    let body: string;
    if (chosen) {
      body = `<p>Earshot keeps collecting from <strong>${escapeHtml(chosen.name)}</strong> for ${project} with the new authorization.</p>${pagesList(pages)}`;
    } else if (done.pageChoiceToken) {
      const csrf = csrfToken(req, res, LINKEDIN_CALLBACK_PATH, secureCookies);
      body = `<p>LinkedIn is connected for ${project}.</p>${choiceForm(pages, { token: done.pageChoiceToken, expiresAt: done.pageChoiceExpiresAt }, csrf)}${apiHint(done.projectId)}`;
    } else {
      body = `<p>LinkedIn is connected for ${project}.</p>${pagesList(pages)}`;
    }
    sendPage(res, 200, "LinkedIn connected", body);
  },
});

const choicePage = definePage({
  title: "The callback page's form: the Page chosen",
  method: "POST",
  paths: [LINKEDIN_CALLBACK_PATH],
  form: true,
  handler: async (req, res, { backends, logger }) => {
    if (!checkCsrf(req)) {
      return sendPage(res, 403, "Page not chosen", `<p class="error" role="alert">This form did not come from this browser's LinkedIn connection. Connect LinkedIn again to choose a Page.</p>`);
    }
    let done;
    try {
      done = await backends.integration.chooseLinkedinPage({ pageChoiceToken: formField(req, "choice"), organizationUrn: formField(req, "organizationUrn") });
    } catch (err) {
      return sendRefusal(res, logger, err, "Page not chosen", "Go back and choose again.");
    }
    const page = done.integration?.page;
    const { projectName, syncsPerDay } = await ownerContext(backends, logger, done.ownerId, done.projectId);
    const allowance = syncsPerDay !== undefined ? `: your plan allows ${syncsPerDay} a day` : "";
    sendPage(
      res,
      200,
      "LinkedIn Page chosen",
      `<p>${projectLabel(projectName, done.projectId)} now collects the mentions of <strong>${escapeHtml(page?.name ?? "the Page")}</strong> and the comments on its posts.</p>
<h2>What happens next</h2>
<ul>
<li>The first sync starts now; what it finds appears among the project's mentions (source <code>linkedin</code>) within a few minutes.</li>
<li>After that, Earshot checks the Page on its regular schedule.</li>
<li>To check sooner, run an extra sync with <code>sync_linkedin</code> (<code>POST /api/v1/integrations/linkedin/sync</code>)${escapeHtml(allowance)}.</li>
<li>To collect from another Page, connect LinkedIn again or use <code>select_linkedin_page</code>.</li>
</ul>`,
    );
  },
});

export const linkedinPages = [callbackPage, choicePage];
