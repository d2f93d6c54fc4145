import type { Logger } from "@earshot/platform";
import type { Request, Response } from "express";
import type { Backends } from "../backends";
import type { DashboardState } from "../catalog/public-dashboard/dashboard-state";
import type { RateLimiter } from "../pipeline/rate-limit";
import type { AppSignIn } from "../sessions/app-sign-in";

// A browser page of the edge (an invitation's acceptance, the LinkedIn callback, a public dashboard): not
// an operation (no Bearer credential, an HTML answer), but declared the same way, beside the operations of
// its resource, and listed in `PAGES`. The gateway app registers every page of the list, so a new page
// never edits it.

export interface PageDeps {
  backends: Backends;
  logger: Logger;
  /** The origin clients use, for links. */
  publicUrl: string;
  /** Whether cookies the page sets must be Secure (the public URL is https). */
  secureCookies: boolean;
  /** Public dashboards: the edge's copy of their state, and the per-address budget of their routes (none: unlimited). */
  dashboards: { state: DashboardState; limiter?: RateLimiter };
  /** Signs the person in to the web app (/app) once a page has checked their password; absent without the web app. */
  appSignIn?: AppSignIn;
}

export interface Page {
  /** What it is, for the documents. */
  title: string;
  method: "GET" | "POST";
  /** Express-style paths, e.g. `/invitations/:token`. */
  paths: readonly string[];
  /** The page reads an HTML form's fields (`application/x-www-form-urlencoded`, at most 16 KiB) as `req.body`. */
  form?: boolean;
  /** Answers the request; anything it throws is a problem answer of the frame (a 500 unless it is a client error). */
  handler: (req: Request, res: Response, deps: PageDeps) => Promise<void>;
}

export const definePage = (page: Page): Page => page;
