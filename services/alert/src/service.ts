import { type AsyncService, type ServiceModule, type Subscription, subscribeDomainEvents } from "@earshot/platform";
import { PROJECT_EVENTS } from "@earshot/project/events";
import { alertV1 } from "@earshot/proto";
import { handleProjectEvent } from "./domain/project-events";
import { alertRpc } from "./rpc/alert-rpc";
import { openAlertCollections } from "./store";
import { wireAlert } from "./wiring";

export const ALERT_SERVICE_NAME = "earshot.alert.v1.AlertService";

export const alertService: ServiceModule = {
  name: "alert",
  consumes: [PROJECT_EVENTS.topic],
  ensureIndexes: async (store) => {
    await openAlertCollections(store);
  },
  open: async (deps) => {
    const collections = await openAlertCollections(deps.store);
    const domain = wireAlert({ ...deps, collections });
    const handlers: AsyncService<alertV1.AlertServiceServer> = alertRpc(domain);
    let subscription: Subscription | undefined;
    return {
      grpc: [{ name: ALERT_SERVICE_NAME, definition: alertV1.AlertServiceService, handlers }],
      // Project events give every new project its Daily Digest and keep each project's status. From the
      // earliest retained event, so projects created before this service first ran are known too.
      start: async () => {
        subscription = await subscribeDomainEvents({
          bus: deps.bus,
          store: deps.store,
          clock: deps.clock,
          logger: deps.logger,
          groupId: "alert.project-events",
          events: PROJECT_EVENTS,
          types: ["project.created", "project.updated", "project.archived"],
          startFrom: "earliest",
          handle: (event) => handleProjectEvent(domain, event),
        });
      },
      stop: async () => {
        await subscription?.stop();
      },
    };
  },
};
