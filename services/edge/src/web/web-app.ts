import type { Clock, Logger } from "@earshot/platform";
import type { Router } from "express";
import type { Backends } from "../backends";
import type { Operation } from "../catalog/operation";
import type { PublicOrigins } from "../oauth/public-origins";
import type { Pipeline } from "../pipeline/execute";
import { type AppPage, webAppRoutes } from "./app-routes";
import { operationRunner } from "./run-operation";
import type { WebSessionStore } from "../sessions/session-store";
import type { UnsubscribeUses } from "./unsubscribe-uses";
import { MANAGE_PAGES } from "./manage-pages";
import { MEMBER_PAGES } from "./member-pages";
import { TRIAGE_PAGES } from "./triage-pages";
import { SOURCE_PAGES } from "./source-pages";
import { WEBHOOK_PAGES } from "./webhook-pages";

// The web app's pages. A new page (the management pages) is an AppPage added to APP_PAGES.

export const APP_PAGES: readonly AppPage[] = [...TRIAGE_PAGES, ...MANAGE_PAGES, ...SOURCE_PAGES, ...WEBHOOK_PAGES, ...MEMBER_PAGES];

export interface WebAppDeps {
  sessions: WebSessionStore;
  pipeline: Pipeline;
  operations: readonly Operation[];
  backends: Backends;
  logger: Logger;
  origins: PublicOrigins;
  secureCookies: boolean;
  pages?: readonly AppPage[];
  clock: Clock;
  /** The one-click unsubscribe links: their HMAC key (from EARSHOT_ENCRYPTION_KEY) and the record of their uses. */
  unsubscribe: { linkKey: Buffer; uses: UnsubscribeUses };
}

export const webApp = (d: WebAppDeps): Router =>
  webAppRoutes({
    sessions: d.sessions,
    runner: operationRunner({ operations: d.operations, pipeline: d.pipeline, backends: d.backends, origin: (req) => d.origins.of(req) }),
    backends: d.backends,
    logger: d.logger,
    origins: d.origins,
    secureCookies: d.secureCookies,
    pages: d.pages ?? APP_PAGES,
    unsubscribe: { ...d.unsubscribe, clock: d.clock },
  });
