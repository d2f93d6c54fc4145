import type { AsyncService, ServiceModule } from "@earshot/platform";
import { projectV1 } from "@earshot/proto";
import { projectRpc } from "./rpc/project-rpc";
import { openProjectCollections } from "./store";

export const PROJECT_SERVICE_NAME = "earshot.project.v1.ProjectService";

export const projectService: ServiceModule = {
  name: "project",
  open: async (deps) => {
    const collections = await openProjectCollections(deps.store);
    const handlers: AsyncService<projectV1.ProjectServiceServer> = projectRpc({ collections, outbox: deps.outbox, clock: deps.clock });
    return { grpc: [{ name: PROJECT_SERVICE_NAME, definition: projectV1.ProjectServiceService, handlers }] };
  },
};
