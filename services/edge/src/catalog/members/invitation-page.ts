import { MEMBER_STATUS_WORDS } from "@earshot/project/fields";
import { isDomainError, ROLE_WORDS } from "@earshot/platform";
import type { Response } from "express";
import { checkCsrf, csrfToken, escapeHtml, sendPage } from "../../pages/html";
import { definePage, type PageDeps } from "../../pages/page";
import { addressKeyOf } from "../../pipeline/address-key";

// The page an emailed invitation link opens: the invitee signs in (or creates their user, with the
// invited address) and becomes a member with the invited role.

interface Preview {
  projectName: string;
  email: string;
  role: string;
  status: string;
}

const forms = (token: string, csrf: string, p: Preview, error?: string): string => `
<p>You were invited to <strong>${escapeHtml(p.projectName)}</strong> as <strong>${escapeHtml(p.role)}</strong>.
The invitation was sent to <strong>${escapeHtml(p.email)}</strong>.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/invitations/${encodeURIComponent(token)}">
  <h2>I have an Earshot account</h2>
  <input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="action" value="signin">
  <label for="signin-password">Password for ${escapeHtml(p.email)}</label>
  <input id="signin-password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in and accept</button>
</form>
<form method="post" action="/invitations/${encodeURIComponent(token)}">
  <h2>I am new to Earshot</h2>
  <input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="action" value="signup">
  <label for="signup-name">Your name</label>
  <input id="signup-name" name="name" autocomplete="name" required maxlength="100">
  <label for="signup-password">Choose a password (8 characters or more)</label>
  <input id="signup-password" name="password" type="password" autocomplete="new-password" required minlength="8">
  <button type="submit" class="secondary">Create my account and accept</button>
</form>`;

const STATUS_TEXT: Record<string, string> = {
  accepted: "This invitation was already accepted.",
  expired: "This invitation has expired. Ask the project owner to invite you again.",
  revoked: "This invitation was withdrawn by the project owner.",
};

const load = async ({ backends, logger }: PageDeps, token: string, res: Response): Promise<Preview | null> => {
  try {
    const { invitation } = await backends.project.getInvitation({ token });
    if (!invitation) throw new Error("empty invitation");
    return { ...invitation, role: ROLE_WORDS.word(invitation.role) ?? "member", status: MEMBER_STATUS_WORDS.word(invitation.status) ?? "" };
  } catch (err) {
    if (isDomainError(err) && (err.code === "not_found" || err.code === "validation_failed")) {
      sendPage(res, 404, "Invitation not found", "<p>This invitation link is not valid. Check that you copied the whole link.</p>");
    } else {
      logger.error({ err }, "invitation lookup failed");
      sendPage(res, 503, "Try again later", "<p>Earshot could not load this invitation right now.</p>");
    }
    return null;
  }
};

const INVITATION_PATH = "/invitations/:token";

export const invitationPages = [
  definePage({
    title: "An invitation's acceptance page",
    method: "GET",
    paths: [INVITATION_PATH],
    handler: async (req, res, deps) => {
      const token = String(req.params.token);
      const preview = await load(deps, token, res);
      if (!preview) return;
      if (preview.status !== "pending") return sendPage(res, 410, "Invitation closed", `<p>${escapeHtml(STATUS_TEXT[preview.status] ?? "This invitation is closed.")}</p>`);
      sendPage(res, 200, "Join a project", forms(token, csrfToken(req, res, "/invitations", deps.secureCookies), preview));
    },
  }),
  definePage({
    title: "An invitation's acceptance: sign in or create an account",
    method: "POST",
    paths: [INVITATION_PATH],
    form: true,
    handler: async (req, res, deps) => {
      const { backends, logger } = deps;
      const token = String(req.params.token);
      if (!checkCsrf(req)) return sendPage(res, 403, "Form expired", `<p>Please <a href="/invitations/${encodeURIComponent(token)}">reload the invitation</a> and try again.</p>`);
      const preview = await load(deps, token, res);
      if (!preview) return;
      if (preview.status !== "pending") return sendPage(res, 410, "Invitation closed", `<p>${escapeHtml(STATUS_TEXT[preview.status] ?? "This invitation is closed.")}</p>`);
      const csrf = csrfToken(req, res, "/invitations", deps.secureCookies);
      const action = req.body?.action === "signup" ? "signup" : "signin";
      const password = typeof req.body?.password === "string" ? (req.body.password as string) : "";
      const name = typeof req.body?.name === "string" ? (req.body.name as string) : "";
      try {
        const user =
          action === "signup"
            ? (await backends.account.createUser({ email: preview.email, name, password })).user
            : (await backends.account.authenticate({ email: preview.email, password, clientAddress: req.ip === undefined ? undefined : addressKeyOf(req.ip) })).user;
        if (!user) throw new Error("no user");
        const accepted = await backends.project.acceptInvitation({ token, userId: user.id, userEmail: user.email, userName: user.name });
        // The new member lands signed in, in the project they joined (the web app), when this edge serves it.
        if (deps.appSignIn && accepted.project?.id) {
          await deps.appSignIn(req, res, { id: user.id, email: user.email, name: user.name });
          return void res.redirect(303, `/app/projects/${encodeURIComponent(accepted.project.id)}`);
        }
        sendPage(
          res,
          200,
          "You're in",
          `<p>${escapeHtml(user.name)}, you are now ${escapeHtml((accepted.member && ROLE_WORDS.word(accepted.member.role)) ?? preview.role)} of <strong>${escapeHtml(
            accepted.project?.name ?? preview.projectName,
          )}</strong>.</p><p>Use the API or connect an AI agent over MCP with your account.</p>`,
        );
      } catch (err) {
        if (!isDomainError(err) || err.code === "internal" || err.code === "unavailable") {
          logger.error({ err }, "invitation acceptance failed");
          return sendPage(res, 503, "Try again later", "<p>Earshot could not accept the invitation right now.</p>");
        }
        const message =
          err.code === "conflict" && action === "signup"
            ? "An account with this email already exists: sign in instead."
            : err.code === "validation_failed"
              ? err.errors.map((e) => `${e.path} ${e.message}`).join("; ")
              : err.message;
        // Sign-in attempts are throttled like the OAuth sign-in page's (README "Security notes"); the page says for how long.
        if (err.code === "rate_limited") res.setHeader("Retry-After", String(err.details.retryAfter ?? 1));
        sendPage(res, err.status, "Join a project", forms(token, csrf, preview, message));
      }
    },
  }),
];
