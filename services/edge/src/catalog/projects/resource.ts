import { projectFields, presentProjectData } from "@earshot/contracts/resources";
import { ROLE_WORDS } from "@earshot/platform";
import { PROJECT_ROLES } from "@earshot/project/fields";
import type { projectV1 } from "@earshot/proto";
import { z } from "zod";
import { oneOf, required, resourceSchemas } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

// A project as the caller sees it: the contract layer's project (what the `project.*` webhooks carry too)
// and the caller's role in it.

export { publicDashboardSchema } from "@earshot/contracts/resources";

export const projectSchema = z
  .object({ ...projectFields, role: z.enum(PROJECT_ROLES).describe("The caller's role in the project.") })
  .register(resourceSchemas, { id: "Project", description: "A project and the caller's role in it." });

export type Project = z.output<typeof projectSchema>;

export const presentProject = (message: projectV1.Project | undefined, publicUrl: string): Project => ({
  ...presentProjectData(message, publicUrl),
  role: oneOf(PROJECT_ROLES, apiWord(ROLE_WORDS, required(message, "project").role), "role"),
});
