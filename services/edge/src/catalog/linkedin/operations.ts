import { linkedinFields } from "@earshot/integration/fields";
import { z } from "zod";
import { defineOperation } from "../operation";
import { projectId } from "../shared/schemas";
import { linkedinConnectUrlSchema, linkedinIntegrationSchema, linkedinSyncSchema, presentLinkedinIntegration } from "./resource";

// A project's LinkedIn connection (owner only): the authorization URL, the connection, the Page choice,
// a metered sync and the disconnection. The browser comes back from LinkedIn to the edge's callback page
// (`callback-page.ts`), whose address is the redirect URI sent here.

export const LINKEDIN_CALLBACK_PATH = "/integrations/linkedin/callback";

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
