export * from "./rpc-metrics";
export * from "./metrics-server";
