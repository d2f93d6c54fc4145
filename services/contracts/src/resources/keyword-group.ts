import type { keywordV1 } from "@earshot/proto";
import { z } from "zod";
import { at, required, resourceSchemas, timestamp } from "./present";

// A keyword group as list_keyword_groups lists it and a `keyword_group.*` webhook carries it.

export const keywordGroupSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    order: z.number().int().describe("Position among the project's groups (ascending)."),
    isDefault: z.boolean().describe("true for My brand and Competitors: fixed, neither renamed, reordered nor deleted."),
    keywordCount: z.number().int().describe("Active keywords in the group."),
    inactiveKeywordCount: z.number().int().describe("Deactivated keywords in the group."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "KeywordGroup", description: "A group of a project's keywords." });

export type KeywordGroup = z.output<typeof keywordGroupSchema>;

export const presentKeywordGroup = (message: keywordV1.KeywordGroup | undefined): KeywordGroup => {
  const g = required(message, "keyword group");
  return {
    id: g.id,
    projectId: g.projectId,
    name: g.name,
    order: g.order,
    isDefault: g.isDefault,
    keywordCount: g.keywordCount,
    inactiveKeywordCount: g.inactiveKeywordCount,
    createdAt: at(g.createdAt, "keyword group createdAt"),
    updatedAt: at(g.updatedAt, "keyword group updatedAt"),
  };
};
