import { isDomainError } from "@earshot/platform";
import type { Request } from "express";
import { escapeHtml, sendPage } from "../../pages/html";
import { definePage } from "../../pages/page";
import { LINKEDIN_CALLBACK_PATH } from "./operations";

// Where LinkedIn sends the owner's browser after the authorization page: not an operation (the browser
// carries no Bearer credential; the state, bound to the project and its owner, is the proof). It hands
// the state and the code (or LinkedIn's error) to the integration service and answers a small page: the
// Pages to choose from, or what went wrong. A refusal is a 4xx page, never a 500.

/** LinkedIn's parameters are short; anything longer is not theirs. */
const MAX_PARAMETER = 2_000;

const parameter = (req: Request, name: string): string | null => {
  const value = req.query[name];
  if (value === undefined) return "";
  if (typeof value !== "string" || value.length > MAX_PARAMETER) return null;
  return value;
};

const pagesList = (pages: Array<{ organizationUrn: string; name: string }>): string =>
  pages.length === 0
    ? "<p>The LinkedIn member who authorized administers no Page, so there is nothing to choose. Authorize again as a Page administrator.</p>"
    : `<ul>${pages.map((p) => `<li>${escapeHtml(p.name)}: <code>${escapeHtml(p.organizationUrn)}</code></li>`).join("")}</ul>`;

export const linkedinCallbackPage = definePage({
  title: "Where LinkedIn sends the browser back",
  method: "GET",
  paths: [LINKEDIN_CALLBACK_PATH],
  handler: async (req, res, { backends, logger }) => {
    const input = { state: parameter(req, "state"), code: parameter(req, "code"), error: parameter(req, "error"), errorDescription: parameter(req, "error_description") };
    const malformed = Object.entries(input).find(([, v]) => v === null);
    if (malformed) {
      return sendPage(res, 400, "LinkedIn not connected", `<p class="error" role="alert">The ${escapeHtml(malformed[0])} parameter is malformed. Ask for a new connect URL and try again.</p>`);
    }
    try {
      const done = await backends.integration.completeLinkedinAuthorization({
        state: input.state ?? "",
        code: input.code ?? "",
        error: input.error ?? "",
        errorDescription: input.errorDescription ?? "",
      });
      const integration = done.integration;
      const chosen = integration?.status === "connected" && integration.page;
      sendPage(
        res,
        200,
        "LinkedIn connected",
        `<p>LinkedIn connected for project <code>${escapeHtml(done.projectId)}</code>.</p>` +
          (chosen
            ? `<p>Earshot keeps collecting from <strong>${escapeHtml(chosen.name)}</strong> (<code>${escapeHtml(chosen.organizationUrn)}</code>) with the new authorization.</p>`
            : `<p>Next: choose a Page with <code>select_linkedin_page</code> (<code>PATCH /api/v1/integrations/linkedin</code> with <code>projectId</code> and <code>organizationUrn</code>). Your Pages:</p>`) +
          pagesList(integration?.pages ?? []),
      );
    } catch (err) {
      if (isDomainError(err) && err.status < 500) {
        const detail = err.errors.length > 0 ? err.errors.map((e) => `${e.path} ${e.message}`).join("; ") : err.message;
        if (err.code === "rate_limited") res.setHeader("Retry-After", String(err.details.retryAfter ?? 1));
        // A rate limit keeps its 429 (with Retry-After); every other refusal is the request's fault: 400.
        return sendPage(res, err.code === "rate_limited" ? 429 : 400, "LinkedIn not connected", `<p class="error" role="alert">${escapeHtml(detail)}</p>`);
      }
      logger.error({ err }, "LinkedIn authorization could not be completed");
      sendPage(res, 503, "Try again later", "<p>Earshot could not complete the LinkedIn authorization right now. Ask for a new connect URL and try again.</p>");
    }
  },
});
