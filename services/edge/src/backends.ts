import { createGrpcClient, createHealthChecker, type AsyncClient, type HealthChecker } from "@earshot/platform";
import { accountV1, projectV1 } from "@earshot/proto";

// The edge's connections to the services: one reused channel per service for calls, and a health
// checker per service for /readyz.

export interface BackendAddresses {
  account: string;
  project: string;
}

export interface Backends {
  account: AsyncClient<accountV1.AccountServiceClient>;
  project: AsyncClient<projectV1.ProjectServiceClient>;
  /** Health of each service, by service name, for readiness. */
  health: Array<{ name: string; address: string; checker: HealthChecker }>;
  close(): void;
}

export const connectBackends = (addresses: BackendAddresses): Backends => {
  const account = createGrpcClient(accountV1.AccountServiceClient, addresses.account);
  const project = createGrpcClient(projectV1.ProjectServiceClient, addresses.project);
  const health = Object.entries(addresses).map(([name, address]) => ({ name, address, checker: createHealthChecker(address) }));
  return {
    account: account.client,
    project: project.client,
    health,
    close: () => {
      account.close();
      project.close();
      health.forEach((h) => h.checker.close());
    },
  };
};
