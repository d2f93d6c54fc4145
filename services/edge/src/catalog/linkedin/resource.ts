import { linkedinIntegrationFields, presentLinkedinIntegrationData } from "@earshot/contracts/resources";
import type { integrationV1 } from "@earshot/proto";
import { z } from "zod";
import { resourceSchemas, timestamp } from "../shared/resources";

// A project's LinkedIn connection as its owner sees it: the contract layer's (what the
// `integration.linkedin.*` webhooks carry too) and the syncs the caller's plan allows today; the connect
// URL and a sync's answer.

export const linkedinIntegrationSchema = z
  .object({
    ...linkedinIntegrationFields,
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

export const presentLinkedinIntegration = (m: integrationV1.LinkedinIntegration | undefined): z.output<typeof linkedinIntegrationSchema> => ({
  ...presentLinkedinIntegrationData(m),
  syncsPerDay: m?.syncsPerDay ?? 0,
  syncsLeftToday: m?.syncsLeftToday ?? 0,
});
