import { createHealthChecker, type GrpcTls, type HealthChecker, type InProcessChannel } from "@earshot/platform";
import { CALLABLE_SERVICES, connectServices, type ServiceAddresses, type ServiceClients } from "@earshot/registry";

// The edge's connections to the services it calls (those with a gRPC API): one reused channel per service
// for calls, and a health checker per service for /readyz.

export type BackendAddresses = ServiceAddresses;

export type Backends = ServiceClients & {
  /** Health of each service, by service name, for readiness. */
  health: Array<{ name: string; address: string; checker: HealthChecker }>;
  close(): void;
};

/**
 * `callerSigningKey` (EARSHOT_CALLER_SIGNING_KEY) signs the caller every call carries; the services check it.
 * `tls` (EARSHOT_GRPC_TLS_*): the certificate presented to services requiring mutual TLS.
 * `inProcess`: the services hosted in this process (the all-in-one), called without a socket.
 */
export const connectBackends = (addresses: BackendAddresses, options: { callerSigningKey?: string; tls?: GrpcTls; inProcess?: InProcessChannel } = {}): Backends => {
  const services = connectServices(addresses, options);
  const health = CALLABLE_SERVICES.map(({ name }) => ({ name, address: addresses[name], checker: createHealthChecker(addresses[name], options.tls) }));
  return {
    ...services.clients,
    health,
    close: () => {
      services.close();
      health.forEach((h) => h.checker.close());
    },
  };
};
