import { enumValueOf } from "@earshot/platform";
import type { integrationV1 } from "@earshot/proto";
import { connectionView, type LinkedinView } from "./domain/linkedin-get";
import { LINKEDIN_STATUS_WORDS } from "./fields";
import type { LinkedinConnectionDoc } from "./store";

// A project's LinkedIn connection as a gRPC message: what the API answers (with the caller's allowance) and
// what the `integration.linkedin.*` events carry (no caller: no allowance), so a webhook's data is what
// get_linkedin_integration presents less the allowance.

export const toIntegration = (v: LinkedinView): integrationV1.LinkedinIntegration => ({
  projectId: v.projectId,
  status: enumValueOf(LINKEDIN_STATUS_WORDS, v.status),
  pages: v.pages.map((p) => ({ organizationUrn: p.organizationUrn, name: p.name })),
  page: v.page ? { organizationUrn: v.page.organizationUrn, name: v.page.name } : undefined,
  connectedAt: v.connectedAt,
  lastSyncAt: v.lastSyncAt,
  syncsLeftToday: v.syncsLeftToday,
  syncsPerDay: v.syncsPerDay,
  tokenExpiresAt: v.tokenExpiresAt,
});

/** The connection after a change, as an event carries it: no caller, so no allowance (0). */
export const integrationOf = (projectId: string, connection: LinkedinConnectionDoc): integrationV1.LinkedinIntegration =>
  toIntegration(connectionView(projectId, connection, 0, 0));
