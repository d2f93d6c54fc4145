import type { AsyncService } from "@earshot/platform";
import type { integrationV1 } from "@earshot/proto";
import type { IntegrationDeps } from "../domain/deps";

type Handlers = Pick<AsyncService<integrationV1.IntegrationServiceServer>, "getSourceHealth">;

// PLACEHOLDER until source health is written.
export const healthRpc = (_deps: IntegrationDeps): Handlers => ({
  getSourceHealth: () => Promise.reject(new Error("not written yet")),
});
