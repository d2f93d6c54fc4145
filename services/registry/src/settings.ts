import { grpcAddrVar } from "./names";
import type { ServiceAddresses } from "./clients";
import { CALLABLE_SERVICES, type ServiceName } from "./services";

/** `ACCOUNT_GRPC_ADDR`, … : the settings naming the address of each service with a gRPC API. */
export type GrpcAddrVar = `${Uppercase<ServiceName>}_GRPC_ADDR`;

/** Where each service listens inside a cluster (its Service name and port): the settings' defaults. */
export const defaultGrpcAddress = (name: string, port = 50051): string => `${name}:${port}`;

/** Reads each service's address from settings keyed `<NAME>_GRPC_ADDR`. */
export const addressesFromSettings = (settings: Record<GrpcAddrVar, string>): ServiceAddresses =>
  Object.fromEntries(CALLABLE_SERVICES.map((s) => [s.name, settings[grpcAddrVar(s.name) as GrpcAddrVar]])) as ServiceAddresses;

/** An address for every service with a gRPC API, e.g. `serviceAddresses((name) => hosted[name])`. */
export const serviceAddresses = (addressOf: (name: ServiceName) => string): ServiceAddresses =>
  Object.fromEntries(CALLABLE_SERVICES.map((s) => [s.name, addressOf(s.name)])) as ServiceAddresses;
