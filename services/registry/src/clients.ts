import { type AsyncClient, createGrpcClient, type GrpcClientOptions } from "@earshot/platform";
import { type RegisteredService, SERVICES, type ServiceEntry, type ServiceName } from "./services";

/** A promise client per registered service, keyed by its name: `clients.project.getProject(...)`. */
export type ServiceClients = { [S in RegisteredService as S["name"]]: AsyncClient<InstanceType<S["client"]>> };

export type ServiceAddresses = Record<ServiceName, string>;

export interface ConnectedServices {
  clients: ServiceClients;
  close(): void;
}

/** One reused channel per registered service. */
export const connectServices = (addresses: ServiceAddresses, options: GrpcClientOptions = {}): ConnectedServices => {
  // The loop cannot keep each entry's own client type; ServiceClients states it per name.
  const handles = (SERVICES as readonly ServiceEntry[]).map((s) => ({
    name: s.name,
    handle: createGrpcClient<object>(s.client, addresses[s.name as ServiceName], options),
  }));
  return {
    clients: Object.fromEntries(handles.map((h) => [h.name, h.handle.client])) as unknown as ServiceClients,
    close: () => handles.forEach((h) => h.handle.close()),
  };
};
