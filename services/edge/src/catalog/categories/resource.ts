import type { mentionV1 } from "@earshot/proto";
import { z } from "zod";
import { at, required, resourceSchemas, timestamp } from "../shared/resources";

export const categorySchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    order: z.number().int().describe("Position among the project's categories (ascending)."),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .register(resourceSchemas, { id: "Category", description: "A project's category for triaging mentions." });

export type Category = z.output<typeof categorySchema>;

export const presentCategory = (message: mentionV1.Category | undefined): Category => {
  const c = required(message, "category");
  return {
    id: c.id,
    projectId: c.projectId,
    name: c.name,
    description: c.description,
    icon: c.icon,
    order: c.order,
    createdAt: at(c.createdAt, "category createdAt"),
    updatedAt: at(c.updatedAt, "category updatedAt"),
  };
};
