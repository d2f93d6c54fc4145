import { LINKEDIN_STATUSES, linkedinFields } from "@earshot/integration/fields";
import type { integrationV1 } from "@earshot/proto";
import { z } from "zod";
import { defineOperation } from "../operation";
import { resourceSchemas } from "../present";
import { projectId } from "./mention-filters";

// A project's LinkedIn connection (owner only): the authorization URL, the connection, the Page choice,
// a metered sync and the disconnection. The browser comes back from LinkedIn to the edge's callback page
// (`pages/linkedin-callback.ts`), whose address is the redirect URI sent here.

export const LINKEDIN_CALLBACK_PATH = "/integrations/linkedin/callback";

const timestamp = z.iso.datetime().describe("ISO 8601, UTC.");

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

const linkedinConnectUrlSchema = z
  .object({
    projectId: z.string(),
    url: z.string().describe("The LinkedIn authorization page for the project owner to open in a browser."),
    expiresAt: timestamp.describe("The URL works once, until then (10 minutes)."),
  })
  .register(resourceSchemas, { id: "LinkedinConnectUrl" });

const linkedinSyncSchema = z
  .object({ postsFound: z.number().int().describe("New posts this sync found and collected."), integration: linkedinIntegrationSchema })
  .register(resourceSchemas, { id: "LinkedinSync" });

const iso = (d: Date | undefined) => (d ? d.toISOString() : null);

export const presentLinkedinIntegration = (m: integrationV1.LinkedinIntegration | undefined): z.output<typeof linkedinIntegrationSchema> => {
  if (!m) throw new Error("the integration service answered without an integration");
  return {
    projectId: m.projectId,
    status: linkedinIntegrationSchema.shape.status.parse(m.status),
    pages: m.pages.map((p) => ({ organizationUrn: p.organizationUrn, name: p.name })),
    page: m.page ? { organizationUrn: m.page.organizationUrn, name: m.page.name } : null,
    connectedAt: iso(m.connectedAt),
    lastSyncAt: iso(m.lastSyncAt),
    tokenExpiresAt: iso(m.tokenExpiresAt),
    syncsPerDay: m.syncsPerDay,
    syncsLeftToday: m.syncsLeftToday,
  };
};

const projectBody = z.object({ projectId }).strict();
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export const linkedinOperations = [
  defineOperation({
    name: "get_linkedin_connect_url",
    title: "Get the LinkedIn connect URL",
    description:
      "Starts connecting the project's LinkedIn Page (owner only): returns the LinkedIn authorization URL the owner must open in a browser. It works once, for 10 minutes; LinkedIn then sends the browser back to Earshot, which lists the Pages to choose from with select_linkedin_page.",
    method: "POST",
    path: "/integrations/linkedin/connect-url",
    scope: "integrations:write",
    tag: "LinkedIn",
    output: linkedinConnectUrlSchema,
    input: { body: projectBody },
    successStatus: 200,
    annotations: { ...WRITE, idempotentHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.integration.getLinkedinConnectUrl({ projectId: input.projectId, redirectUri: `${ctx.origin}${LINKEDIN_CALLBACK_PATH}` });
      return { data: { projectId: input.projectId, url: res.url, expiresAt: (res.expiresAt ?? new Date(0)).toISOString() } };
    },
  }),
  defineOperation({
    name: "get_linkedin_integration",
    title: "Get the LinkedIn integration",
    description: "Returns the project's LinkedIn connection (owner only): status, the Pages to choose from, the selected Page, the last sync and the syncs left today.",
    method: "GET",
    path: "/integrations/linkedin",
    scope: "integrations:read",
    tag: "LinkedIn",
    output: linkedinIntegrationSchema,
    input: { query: projectBody },
    successStatus: 200,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { integration } = await ctx.backends.integration.getLinkedinIntegration({ projectId: input.projectId });
      return { data: presentLinkedinIntegration(integration) };
    },
  }),
  defineOperation({
    name: "select_linkedin_page",
    title: "Select the LinkedIn Page",
    description: "Chooses which of the authorizing member's Pages the project collects mentions and comments from (owner only); organizationUrn must be one of the integration's pages.",
    method: "PATCH",
    path: "/integrations/linkedin",
    scope: "integrations:write",
    tag: "LinkedIn",
    output: linkedinIntegrationSchema,
    input: {
      body: z
        .object({ projectId, organizationUrn: linkedinFields.organizationUrn })
        .strict(),
    },
    successStatus: 200,
    annotations: { ...WRITE, openWorldHint: false },
    handler: async (input, ctx) => {
      const { integration } = await ctx.backends.integration.selectLinkedinPage({ projectId: input.projectId, organizationUrn: input.organizationUrn });
      return { data: presentLinkedinIntegration(integration) };
    },
  }),
  defineOperation({
    name: "sync_linkedin",
    title: "Sync LinkedIn now",
    description:
      "Collects the selected Page's new mentions and comments now (owner only). Metered: each sync counts against the workspace's LinkedIn syncs per day (402 when spent); LinkedIn's own limit answers 429 with Retry-After and is not counted.",
    method: "POST",
    path: "/integrations/linkedin/sync",
    scope: "integrations:write",
    tag: "LinkedIn",
    output: linkedinSyncSchema,
    input: { body: projectBody },
    successStatus: 200,
    annotations: { ...WRITE, idempotentHint: false },
    handler: async (input, ctx) => {
      const res = await ctx.backends.integration.syncLinkedin({ projectId: input.projectId });
      return { data: { postsFound: res.postsFound, integration: presentLinkedinIntegration(res.integration) } };
    },
  }),
  defineOperation({
    name: "disconnect_linkedin",
    title: "Disconnect LinkedIn",
    description: "Disconnects the project's LinkedIn Page (owner only): its tokens and Page are dropped and collection from it stops. Disconnecting again changes nothing.",
    method: "DELETE",
    path: "/integrations/linkedin",
    scope: "integrations:write",
    tag: "LinkedIn",
    output: linkedinIntegrationSchema,
    input: { query: projectBody },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { integration } = await ctx.backends.integration.disconnectLinkedin({ projectId: input.projectId });
      return { data: presentLinkedinIntegration(integration) };
    },
  }),
];
