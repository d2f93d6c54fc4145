export * from "./rpc-metrics";
export * from "./metrics-server";
export * from "./store-metrics";
