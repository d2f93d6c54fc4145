export * from "./backends";
export * from "./config";
export * from "./gateway";
export * from "./gateway-app";
export * from "./http/problem";
export * from "./http/request-context";
