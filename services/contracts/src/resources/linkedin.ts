import type { integrationV1 } from "@earshot/proto";
import { z } from "zod";
import { LINKEDIN_STATUS_WORDS, LINKEDIN_STATUSES } from "../fields";
import { apiWord, atOrNull, oneOf, resourceSchemas, timestamp } from "./present";

// A project's LinkedIn connection as the API presents it, less the caller's allowance: what an
// `integration.linkedin.*` webhook carries, and what get_linkedin_integration answers with the syncs the
// caller's plan allows beside it (the edge adds `syncsPerDay` and `syncsLeftToday`).

export const linkedinPageSchema = z
  .object({ organizationUrn: z.string().describe("e.g. urn:li:organization:2414183"), name: z.string() })
  .register(resourceSchemas, { id: "LinkedinPage", description: "A LinkedIn Page the authorizing member administers." });

export const linkedinIntegrationFields = {
  projectId: z.string(),
  status: z
    .enum(LINKEDIN_STATUSES)
    .describe(
      "pending_page: authorized, choose a Page with select_linkedin_page; connected: the Page is collected; reauthorization_required: LinkedIn no longer accepts the authorization (expired or revoked), connect again with get_linkedin_connect_url.",
    ),
  pages: z.array(linkedinPageSchema).describe("The Pages the authorizing member administers (empty when disconnected)."),
  page: linkedinPageSchema.nullable().describe("The selected Page."),
  connectedAt: timestamp.nullable(),
  lastSyncAt: timestamp.nullable(),
  tokenExpiresAt: timestamp.nullable().describe("When LinkedIn's authorization runs out; authorize again before."),
};

export const linkedinIntegrationDataSchema = z
  .object(linkedinIntegrationFields)
  .register(resourceSchemas, {
    id: "LinkedinIntegrationData",
    description: "A project's LinkedIn connection as a webhook carries it: get_linkedin_integration's answer without the caller's sync allowance.",
  });

export type LinkedinIntegrationData = z.output<typeof linkedinIntegrationDataSchema>;

export const presentLinkedinIntegrationData = (m: integrationV1.LinkedinIntegration | undefined): LinkedinIntegrationData => {
  if (!m) throw new Error("the integration service answered without an integration");
  return {
    projectId: m.projectId,
    status: oneOf(LINKEDIN_STATUSES, apiWord(LINKEDIN_STATUS_WORDS, m.status), "LinkedIn status"),
    pages: m.pages.map((p) => ({ organizationUrn: p.organizationUrn, name: p.name })),
    page: m.page ? { organizationUrn: m.page.organizationUrn, name: m.page.name } : null,
    connectedAt: atOrNull(m.connectedAt),
    lastSyncAt: atOrNull(m.lastSyncAt),
    tokenExpiresAt: atOrNull(m.tokenExpiresAt),
  };
};
