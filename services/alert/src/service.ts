import { type AsyncService, consume, type ServiceModule } from "@earshot/platform";
import { PROJECT_EVENTS } from "@earshot/contracts/events";
import { alertV1 } from "@earshot/proto";
import type { AlertDeps } from "./domain/deps";
import { handleProjectEvent } from "./domain/project-events";
import { alertRpc } from "./rpc/alert-rpc";
import { openAlertCollections } from "./store";
import { wireAlert } from "./wiring";

export const ALERT_SERVICE_NAME = "earshot.alert.v1.AlertService";

export const alertService: ServiceModule<AlertDeps> = {
  name: "alert",
  consumers: [
    // Project events give every new project its Daily Digest and keep each project's status. From the
    // earliest retained event, so projects created before this service first ran are known too.
    consume(PROJECT_EVENTS, { group: "alert.project-events", types: ["project.created", "project.updated", "project.archived"], startFrom: "earliest", handle: handleProjectEvent }),
  ],
  ensureIndexes: async (store) => {
    await openAlertCollections(store);
  },
  open: async (deps) => {
    const collections = await openAlertCollections(deps.store);
    const domain = wireAlert({ ...deps, collections });
    const handlers: AsyncService<alertV1.AlertServiceServer> = alertRpc(domain);
    return { domain, grpc: [{ name: ALERT_SERVICE_NAME, definition: alertV1.AlertServiceService, handlers }] };
  },
};
