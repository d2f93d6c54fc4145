// The gRPC transport: servers with health and graceful drain, clients with deadlines and read retries, and
// the mapping between domain errors and gRPC statuses. Service wiring (rpc/, main.ts) imports this.
export * from "./error-mapping";
export * from "./server";
export * from "./client";
export * from "./call-context";
export * from "./health";
export * from "./common-enums";
export * from "./tls";
export * from "./in-process";
