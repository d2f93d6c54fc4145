import { ACCOUNT_EVENTS } from "@earshot/account/events";
import { type AsyncService, type ServiceModule, type Subscription, subscribeDomainEvents } from "@earshot/platform";
import { projectV1 } from "@earshot/proto";
import { announceDashboards } from "./domain/dashboard-announcement";
import { handleAccountEvent } from "./domain/deactivation";
import { projectRpc } from "./rpc/project-rpc";
import { openProjectCollections } from "./store";
import { wireProject } from "./wiring";

export const PROJECT_SERVICE_NAME = "earshot.project.v1.ProjectService";

export const projectService: ServiceModule = {
  name: "project",
  consumes: [ACCOUNT_EVENTS.topic],
  ensureIndexes: async (store) => {
    await openProjectCollections(store);
  },
  open: async (deps) => {
    const collections = await openProjectCollections(deps.store);
    const domain = wireProject({ ...deps, collections });
    const handlers: AsyncService<projectV1.ProjectServiceServer> = projectRpc(domain);
    let subscription: Subscription | undefined;
    return {
      grpc: [{ name: PROJECT_SERVICE_NAME, definition: projectV1.ProjectServiceService, handlers }],
      start: async () => {
        // Public dashboards enabled before `project.dashboard_changed` existed are announced once.
        await announceDashboards(domain);
        // Account deactivation stops the owner's projects; reactivation resumes them.
        subscription = await subscribeDomainEvents({
          bus: deps.bus,
          store: deps.store,
          clock: deps.clock,
          logger: deps.logger,
          groupId: "project.account-events",
          events: ACCOUNT_EVENTS,
          types: ["user.deactivated", "user.reactivated"],
          handle: (event) => handleAccountEvent(domain, event),
        });
      },
      stop: async () => {
        await subscription?.stop();
      },
    };
  },
};
