export * from "./clients";
export * from "./names";
export * from "./services";
export * from "./settings";
