import { ACCOUNT_EVENTS } from "@earshot/contracts/events";
import { type AsyncService, consume, MAIL_SIGNING_SETTINGS, type ServiceModule } from "@earshot/platform";
import { projectV1 } from "@earshot/proto";
import { announceDashboards } from "./domain/dashboard-announcement";
import { handleAccountEvent } from "./domain/deactivation";
import type { ProjectDeps } from "./domain/deps";
import { projectRpc } from "./rpc/project-rpc";
import { openProjectCollections } from "./store";
import { wireProject } from "./wiring";

export const PROJECT_SERVICE_NAME = "earshot.project.v1.ProjectService";

export const projectService: ServiceModule<ProjectDeps> = {
  name: "project",
  // It mails invitations.
  settings: MAIL_SIGNING_SETTINGS,
  consumers: [
    // Account deactivation stops the owner's projects; reactivation resumes them.
    consume(ACCOUNT_EVENTS, { group: "project.account-events", types: ["user.deactivated", "user.reactivated"], handle: handleAccountEvent }),
  ],
  ensureIndexes: async (store) => {
    await openProjectCollections(store);
  },
  open: async (deps) => {
    const collections = await openProjectCollections(deps.store);
    const domain = wireProject({ ...deps, collections });
    const handlers: AsyncService<projectV1.ProjectServiceServer> = projectRpc(domain);
    return {
      domain,
      grpc: [{ name: PROJECT_SERVICE_NAME, definition: projectV1.ProjectServiceService, handlers }],
      // Public dashboards enabled before `project.dashboard_changed` existed are announced once.
      start: async () => {
        await announceDashboards(domain);
      },
    };
  },
};
