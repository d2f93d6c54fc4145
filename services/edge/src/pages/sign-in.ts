import { isDomainError, type Logger } from "@earshot/platform";
import type { Request } from "express";
import type { Backends } from "../backends";
import { addressKeyOf } from "../pipeline/address-key";
import { escapeHtml } from "./html";

// The one sign-in of Earshot's pages (the OAuth authorization page and the web app): one form, one call
// to the account service. The account service throttles per (email, address), per address and per email,
// so a guesser meets the same budget whichever page it posts to; its answer for a wrong password and for an
// unknown email is the same sentence, and the page after a failure is the same whatever was typed (the
// email is not echoed), so neither page tells which accounts exist.

export interface SignInFormOptions {
  /** Where the form posts. */
  action: string;
  csrf: string;
  /** Further hidden fields (the OAuth request id, the web app's `next`). */
  hidden?: Record<string, string>;
  error?: string;
}

export const signInFormHtml = (o: SignInFormOptions): string => `${o.error ? `<p class="error" role="alert" id="sign-in-error">${escapeHtml(o.error)}</p>` : ""}
<form method="post" action="${escapeHtml(o.action)}" class="sign-in">
  <input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}">${Object.entries(o.hidden ?? {})
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("")}
  <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required${o.error ? ` aria-describedby="sign-in-error"` : ""}>
  <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`;

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
}

export type SignInOutcome =
  | { ok: true; user: SignedInUser }
  /** `status` 401 (wrong email or password), 429 (throttled, with retryAfter seconds) or 503. */
  | { ok: false; status: number; message: string; retryAfter?: number };

/** Checks the posted email and password with the account service, mapping its answer for a page. */
export const signInWithPassword = async (backends: Backends, logger: Logger, req: Request): Promise<SignInOutcome> => {
  try {
    // The address is req.ip (as trust proxy allows) counted as the pipeline counts it: an IPv6 client by
    // its /64, which one host can rotate through at will.
    const { user } = await backends.account.authenticate({
      email: String(req.body?.email ?? ""),
      password: String(req.body?.password ?? ""),
      clientAddress: req.ip === undefined ? undefined : addressKeyOf(req.ip),
    });
    if (!user) throw new Error("no user");
    return { ok: true, user: { id: user.id, email: user.email, name: user.name } };
  } catch (err) {
    if (isDomainError(err) && err.code === "unauthorized") return { ok: false, status: 401, message: err.message };
    if (isDomainError(err) && err.code === "rate_limited") return { ok: false, status: 429, message: err.message, retryAfter: Number(err.details.retryAfter ?? 1) };
    logger.error({ err }, "sign-in failed");
    return { ok: false, status: 503, message: "Earshot could not sign you in right now. Try again later." };
  }
};
