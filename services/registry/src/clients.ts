import { type AsyncClient, createGrpcClient, type GrpcClientOptions } from "@earshot/platform";
import { CALLABLE_SERVICES, type CallableService, type ServiceClientClass, type ServiceName } from "./services";

/** A promise client per service with a gRPC API, keyed by its name: `clients.project.getProject(...)`. */
export type ServiceClients = { [S in CallableService as S["name"]]: AsyncClient<InstanceType<S["client"]>> };

export type ServiceAddresses = Record<ServiceName, string>;

export interface ConnectedServices {
  clients: ServiceClients;
  close(): void;
}

/** One reused channel per service with a gRPC API. */
export const connectServices = (addresses: ServiceAddresses, options: GrpcClientOptions = {}): ConnectedServices => {
  // The loop cannot keep each entry's own client type; ServiceClients states it per name.
  const handles = (CALLABLE_SERVICES as ReadonlyArray<{ name: string; client: ServiceClientClass }>).map((s) => ({
    name: s.name,
    handle: createGrpcClient<object>(s.client, addresses[s.name as ServiceName], options),
  }));
  return {
    clients: Object.fromEntries(handles.map((h) => [h.name, h.handle.client])) as unknown as ServiceClients,
    close: () => handles.forEach((h) => h.handle.close()),
  };
};
