import { dashboardFields, PROJECT_DEFAULTS, projectFields, projectStatusField } from "@earshot/project/fields";
import { commonV1 } from "@earshot/proto";
import { z } from "zod";
import { PROJECT_STATUS_WORDS, SOURCE_WORDS } from "@earshot/platform";
import { defineOperation } from "../operation";
import { pageQuery, projectPath } from "../shared/schemas";
import { wireValue } from "../shared/wire-enums";
import { presentProject, projectSchema } from "./resource";

const optionalProjectFields = {
  description: projectFields.description.optional(),
  color: projectFields.color.optional(),
  icon: projectFields.icon.optional(),
  enabledSources: projectFields.enabledSources.optional(),
  digestTimezone: projectFields.digestTimezone.optional(),
};

/** What create_project fills in for a field left out: published as each field's default. */
const defaultedProjectFields = {
  description: projectFields.description.default(PROJECT_DEFAULTS.description),
  color: projectFields.color.default(PROJECT_DEFAULTS.color),
  icon: projectFields.icon.default(PROJECT_DEFAULTS.icon),
  enabledSources: projectFields.enabledSources.default([...PROJECT_DEFAULTS.enabledSources]),
  digestTimezone: projectFields.digestTimezone.default(PROJECT_DEFAULTS.digestTimezone),
};

type OptionalProjectFields = { [K in keyof typeof optionalProjectFields]?: z.infer<(typeof optionalProjectFields)[K]> };

/** The optional fields as the gRPC message carries them (sources wrapped, so absent differs from empty). */
const projectFieldsMessage = (input: OptionalProjectFields) => ({
  description: input.description,
  color: input.color,
  icon: input.icon,
  enabledSources: input.enabledSources ? { sources: input.enabledSources.map((s) => wireValue(SOURCE_WORDS, s)) } : undefined,
  digestTimezone: input.digestTimezone,
});

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const projectOperations = [
  defineOperation({
    name: "list_projects",
    title: "List projects",
    description: "Lists the active (non-archived) projects the caller owns or was invited to, newest first, with the caller's role in each.",
    method: "GET",
    path: "/projects",
    scope: "projects:read",
    tag: "Projects",
    output: projectSchema,
    input: { query: pageQuery },
    successStatus: 200,
    list: true,
    annotations: READ,
    handler: async (input, ctx) => {
      const res = await ctx.backends.project.listProjects({ limit: input.limit, cursor: input.cursor ?? "" });
      return { data: res.projects.map((p) => presentProject(p, ctx.publicUrl)), nextCursor: res.nextCursor || null, limit: input.limit };
    },
  }),
  defineOperation({
    name: "create_project",
    title: "Create a project",
    description:
      "Creates a project owned by the caller, with a Daily Digest at 8 AM in digestTimezone (default UTC). Only name is required; the rest have defaults.",
    method: "POST",
    path: "/projects",
    scope: "projects:write",
    tag: "Projects",
    output: projectSchema,
    input: {
      body: z.object({ name: projectFields.name, ...defaultedProjectFields }).strict(),
    },
    successStatus: 201,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async (input, ctx) => {
      const { project } = await ctx.backends.project.createProject({
        name: input.name,
        ...projectFieldsMessage(input),
      });
      const created = presentProject(project, ctx.publicUrl);
      // The owner's next request may come before project.created reaches this process's cache; services
      // that authorize by the caller's memberships (keywords) would not know the project yet.
      ctx.memberships.grant(ctx.principal.userId, { projectId: created.id, role: commonV1.Role.ROLE_OWNER, workspaceId: created.workspaceId });
      return { data: created };
    },
  }),
  defineOperation({
    name: "get_project",
    title: "Get a project",
    description: "Returns the project and the caller's role in it (owner, editor or viewer).",
    method: "GET",
    path: "/projects/:projectId",
    scope: "projects:read",
    tag: "Projects",
    output: projectSchema,
    input: { path: projectPath },
    successStatus: 200,
    annotations: READ,
    handler: async (input, ctx) => {
      const { project } = await ctx.backends.project.getProject({ projectId: input.projectId });
      return { data: presentProject(project, ctx.publicUrl) };
    },
  }),
  defineOperation({
    name: "update_project",
    title: "Update a project",
    description:
      "Changes any of name, description, color, icon, enabledSources, digestTimezone (editor or owner) or status (owner only: paused, active, archived).",
    method: "PATCH",
    path: "/projects/:projectId",
    scope: "projects:write",
    tag: "Projects",
    output: projectSchema,
    input: {
      path: projectPath,
      body: z
        .object({
          name: projectFields.name.optional(),
          ...optionalProjectFields,
          status: projectStatusField.optional().describe("Owner only: active, paused or archived."),
        })
        .strict(),
    },
    successStatus: 200,
    // status "archived" hides the project (it leaves list_projects): that is destructive.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { project } = await ctx.backends.project.updateProject({
        projectId: input.projectId,
        name: input.name,
        ...projectFieldsMessage(input),
        status: input.status === undefined ? undefined : wireValue(PROJECT_STATUS_WORDS, input.status),
      });
      return { data: presentProject(project, ctx.publicUrl) };
    },
  }),
  defineOperation({
    name: "archive_project",
    title: "Archive a project",
    description: "Archives the project (owner only) and disconnects its LinkedIn integration. Archived projects leave list_projects.",
    method: "DELETE",
    path: "/projects/:projectId",
    scope: "projects:write",
    tag: "Projects",
    output: projectSchema,
    input: { path: projectPath },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (input, ctx) => {
      const { project } = await ctx.backends.project.archiveProject({ projectId: input.projectId });
      return { data: presentProject(project, ctx.publicUrl) };
    },
  }),
  defineOperation({
    name: "set_public_dashboard",
    title: "Set the public dashboard",
    description:
      "Enables or disables the project's read-only public dashboard (editor or owner). The share URL is assigned on first enable and stays reserved while disabled. " +
      "minRelevance (0 to 1) shows on the dashboard only mentions whose relevance score is at least this (a mention stored without a score counts as 0.5); 0 removes it.",
    method: "PATCH",
    path: "/projects/:projectId/public-dashboard",
    scope: "projects:write",
    tag: "Projects",
    output: projectSchema,
    input: {
      path: projectPath,
      body: z
        .object({
          enabled: z.boolean(),
          description: dashboardFields.description.optional(),
          websiteUrl: dashboardFields.websiteUrl.optional(),
          minRelevance: dashboardFields.minRelevance.optional(),
        })
        .strict(),
    },
    successStatus: 200,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    handler: async (input, ctx) => {
      const { project } = await ctx.backends.project.setPublicDashboard({
        projectId: input.projectId,
        enabled: input.enabled,
        description: input.description,
        websiteUrl: input.websiteUrl,
        minRelevance: input.minRelevance,
      });
      return { data: presentProject(project, ctx.publicUrl) };
    },
  }),
];
