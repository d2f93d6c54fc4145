import { type Clock, DomainError, type Logger, verifyUnsubscribeToken } from "@earshot/platform";
import express, { type Request, type Response, Router } from "express";
import { escapeHtml } from "../pages/html";
import { sendAppPage } from "./layout";
import type { LinkActor, OperationRunner } from "./run-operation";
import type { UnsubscribeUse, UnsubscribeUses } from "./unsubscribe-uses";

// One-click unsubscribe (RFC 8058) from an alert email, without a sign-in: the link's signed token (see
// @earshot/platform's unsubscribe-token) is the permission, for its one alert only. A mail client POSTs
// `List-Unsubscribe=One-Click` to the link with no cookies; a person opening it gets a page asking to confirm
// (a GET never changes anything: link scanners open every link). The alert is turned off through the
// operation pipeline as the person the email went to (update_alert, audited, idempotent per link), with only
// the alert and project scopes. A link works once: its use is kept, and the page offers to turn the alert
// back on, after which the link turns nothing off again.

export interface UnsubscribeOptions {
  runner: OperationRunner;
  uses: UnsubscribeUses;
  /** The links' HMAC key, derived from EARSHOT_ENCRYPTION_KEY as the digest service derives it. */
  linkKey: Buffer;
  clock: Clock;
  logger: Logger;
}

const LINK_SCOPES = ["alerts:read", "alerts:write", "projects:read"];

interface Alert {
  id: string;
  projectId: string;
  name: string;
  active: boolean;
}

interface Target {
  token: string;
  nonce: string;
  expiresAt: Date;
  actor: LinkActor;
  alert: Alert;
  projectName: string;
}

const path = (token: string) => `/app/unsubscribe/${encodeURIComponent(token)}`;
const alertPage = (a: Alert) => `/app/projects/${encodeURIComponent(a.projectId)}/alerts/${encodeURIComponent(a.id)}`;
const day = (d: Date) => d.toISOString().slice(0, 10);

const page = (res: Response, status: number, title: string, body: string) => sendAppPage(res, status, { title, body: `<div class="narrow">${body}</div>` });
const named = (t: Target) => `<strong>${escapeHtml(t.alert.name)}</strong> of <strong>${escapeHtml(t.projectName)}</strong>`;
const changeInstead = (t: Target) => `<p><a href="${alertPage(t.alert)}">Change the alert instead</a> (you will be asked to sign in).</p>`;
const button = (action: string, label: string, primary = false) => `<form method="post" action="${action}"><button class="btn${primary ? " primary" : ""}" type="submit">${label}</button></form>`;

const offPage = (res: Response, t: Target, when: Date) =>
  page(
    res,
    200,
    "Unsubscribed",
    `<p role="status">The alert ${named(t)} is off (${day(when)}): it sends no more emails, to you or anyone.</p>${button(`${path(t.token)}/undo`, "Turn it back on")}${changeInstead(t)}`,
  );

/**
 * A used link's state: `off` while its alert is off (or a click at the same moment is turning it off), `spent`
 * once it is on again (the page's undo, or anyone since).
 */
const stateOf = (use: UnsubscribeUse, alertActive: boolean): "off" | "spent" => (use.undoneAt || (use.offAt && alertActive) ? "spent" : "off");

const usedUp = (res: Response, t: Target, use: UnsubscribeUse) =>
  page(
    res,
    410,
    "Link already used",
    `<p role="alert">This link turned ${named(t)} off on ${day(use.usedAt)}, and it was turned back on${use.undoneAt ? ` on ${day(use.undoneAt)}` : " since"}. A link works once: use the link of a newer email, or change the alert after signing in.</p>${changeInstead(t)}`,
  );

export const unsubscribeRoutes = (o: UnsubscribeOptions): Router => {
  const router = Router();
  // A mail client's body (`List-Unsubscribe=One-Click`, form-encoded or multipart) is not needed: the link says it all.
  const form = express.urlencoded({ extended: false, limit: "1kb" });

  /** The link's alert, as the person it acts for sees it; a page answered (and undefined) when there is none. */
  const targetOf = async (req: Request, res: Response): Promise<Target | undefined> => {
    const token = String(req.params.token);
    const check = verifyUnsubscribeToken(o.linkKey, token, o.clock.now());
    if (!check.ok) {
      if (check.reason === "expired") page(res, 410, "Link expired", `<p role="alert">This unsubscribe link has expired. Use the link of a newer email, or <a href="/app">sign in</a> to change your alerts.</p>`);
      else page(res, 404, "Link not valid", `<p role="alert">This unsubscribe link is not valid. Check that you opened the whole link, or <a href="/app">sign in</a> to change your alerts.</p>`);
      return undefined;
    }
    const { claims } = check;
    const actor: LinkActor = { userId: claims.userId, credentialId: `unsub_${claims.nonce}`, scopes: LINK_SCOPES };
    const [alert, project] = await Promise.all([
      o.runner.runFor<Alert>("get_alert", { alertId: claims.alertId }, req, actor),
      o.runner.runFor<{ name: string }>("get_project", { projectId: claims.projectId }, req, actor),
    ]);
    if (!alert.ok || alert.data.projectId !== claims.projectId) {
      const gone = alert.ok || alert.problem.status === 404;
      page(res, gone ? 404 : 503, gone ? "Alert not found" : "Try again later", gone ? `<p role="alert">This alert no longer exists, so it sends nothing.</p>` : "<p>Earshot could not do that right now. Try again shortly.</p>");
      return undefined;
    }
    return { token, nonce: claims.nonce, expiresAt: claims.expiresAt, actor, alert: alert.data, projectName: project.ok ? project.data.name : "its project" };
  };

  /** Runs `fn` for the link; an account that is no longer active, or a backend down, gets its page. */
  const handle = (fn: (req: Request, res: Response, t: Target) => Promise<void>) => async (req: Request, res: Response) => {
    try {
      const target = await targetOf(req, res);
      if (target) await fn(req, res, target);
    } catch (err) {
      if (err instanceof DomainError && err.code === "unauthorized") return page(res, 403, "Not allowed", `<p role="alert">The account this email was sent to is no longer active.</p>`);
      o.logger.error({ err, path: "/app/unsubscribe" }, "unsubscribe page failed");
      page(res, 503, "Try again later", "<p>Earshot could not do that right now. Try again shortly.</p>");
    }
  };

  const failed = (res: Response, t: Target, status: number) =>
    page(res, status >= 500 ? 503 : status, "That did not work", `<p role="alert">Earshot could not change ${named(t)} right now. Try again shortly.</p>${changeInstead(t)}`);

  router.get(
    "/app/unsubscribe/:token",
    handle(async (_req, res, t) => {
      const use = await o.uses.find(t.nonce);
      if (use) return stateOf(use, t.alert.active) === "spent" ? usedUp(res, t, use) : offPage(res, t, use.usedAt);
      if (!t.alert.active) return page(res, 200, "Already off", `<p role="status">The alert ${named(t)} is already off: it sends no emails.</p>${changeInstead(t)}`);
      page(res, 200, "Unsubscribe", `<p>Turn off the alert ${named(t)}? It will send no more emails, to you or anyone, until it is turned on again.</p>${button(path(t.token), "Turn off", true)}${changeInstead(t)}`);
    }),
  );

  router.post(
    "/app/unsubscribe/:token",
    form,
    handle(async (req, res, t) => {
      if (!t.alert.active && !(await o.uses.find(t.nonce))) {
        return page(res, 200, "Already off", `<p role="status">The alert ${named(t)} is already off: it sends no emails.</p>${changeInstead(t)}`);
      }
      const claim = await o.uses.claim(t.nonce, t.alert.id, t.expiresAt);
      if (!claim.claimed) return stateOf(claim.use, t.alert.active) === "spent" ? usedUp(res, t, claim.use) : offPage(res, t, claim.use.usedAt);
      const off = await o.runner.runFor("update_alert", { alertId: t.alert.id, active: false }, req, t.actor, `unsubscribe-${t.nonce}`);
      if (!off.ok) {
        await o.uses.release(t.nonce);
        return failed(res, t, off.problem.status);
      }
      await o.uses.turnedOff(t.nonce);
      offPage(res, t, o.clock.now());
    }),
  );

  router.post(
    "/app/unsubscribe/:token/undo",
    form,
    handle(async (req, res, t) => {
      const use = await o.uses.find(t.nonce);
      if (!use) return void res.redirect(303, path(t.token));
      if (!(await o.uses.undo(t.nonce))) return page(res, 200, "Alert on again", `<p role="status">The alert ${named(t)} is on again.</p>`);
      const on = await o.runner.runFor("update_alert", { alertId: t.alert.id, active: true }, req, t.actor, `unsubscribe-undo-${t.nonce}`);
      if (!on.ok) {
        await o.uses.redo(t.nonce);
        return failed(res, t, on.problem.status);
      }
      page(res, 200, "Alert on again", `<p role="status">The alert ${named(t)} is on again: its emails resume.</p>${changeInstead(t)}`);
    }),
  );
  return router;
};
