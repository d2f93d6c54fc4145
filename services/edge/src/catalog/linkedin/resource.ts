import { LINKEDIN_STATUS_WORDS, LINKEDIN_STATUSES } from "@earshot/integration/fields";
import type { integrationV1 } from "@earshot/proto";
import { z } from "zod";
import { atOrNull, oneOf, resourceSchemas, timestamp } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

const linkedinPageSchema = z
  .object({ organizationUrn: z.string().describe("e.g. urn:li:organization:2414183"), name: z.string() })
  .register(resourceSchemas, { id: "LinkedinPage", description: "A LinkedIn Page the authorizing member administers." });

export const linkedinIntegrationSchema = z
  .object({
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
    syncsPerDay: z.number().int().describe("The workspace's sync_linkedin allowance per UTC day."),
    syncsLeftToday: z.number().int(),
  })
  .register(resourceSchemas, { id: "LinkedinIntegration", description: "A project's LinkedIn connection (never its tokens)." });

export const linkedinConnectUrlSchema = z
  .object({
    projectId: z.string(),
    url: z.string().describe("The LinkedIn authorization page for the project owner to open in a browser."),
    expiresAt: timestamp.describe("The URL works once, until then (10 minutes)."),
  })
  .register(resourceSchemas, { id: "LinkedinConnectUrl" });

export const linkedinSyncSchema = z
  .object({ postsFound: z.number().int().describe("New posts this sync found and collected."), integration: linkedinIntegrationSchema })
  .register(resourceSchemas, { id: "LinkedinSync" });

export const presentLinkedinIntegration = (m: integrationV1.LinkedinIntegration | undefined): z.output<typeof linkedinIntegrationSchema> => {
  if (!m) throw new Error("the integration service answered without an integration");
  return {
    projectId: m.projectId,
    status: oneOf(LINKEDIN_STATUSES, apiWord(LINKEDIN_STATUS_WORDS, m.status), "LinkedIn status"),
    pages: m.pages.map((p) => ({ organizationUrn: p.organizationUrn, name: p.name })),
    page: m.page ? { organizationUrn: m.page.organizationUrn, name: m.page.name } : null,
    connectedAt: atOrNull(m.connectedAt),
    lastSyncAt: atOrNull(m.lastSyncAt),
    tokenExpiresAt: atOrNull(m.tokenExpiresAt),
    syncsPerDay: m.syncsPerDay,
    syncsLeftToday: m.syncsLeftToday,
  };
};
