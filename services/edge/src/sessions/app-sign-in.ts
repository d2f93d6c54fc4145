import type { Request, Response } from "express";
import type { SignedInUser } from "../pages/sign-in";
import { readSessionId, setSessionCookie } from "./session-http";
import type { WebSessionStore } from "./session-store";

/**
 * Signs a person in to the web app on this response: the session the browser held ends and a new one
 * starts (an id planted by someone else is never promoted). Used by /app/sign-in and by any page that
 * has just checked the person's password (an invitation's acceptance).
 */
export type AppSignIn = (req: Request, res: Response, user: SignedInUser) => Promise<void>;

export const appSignIn =
  (sessions: WebSessionStore, secureCookies: boolean): AppSignIn =>
  async (req, res, user) => {
    await sessions.end(readSessionId(req));
    const { id } = await sessions.create(user);
    setSessionCookie(req, res, id, secureCookies);
  };
