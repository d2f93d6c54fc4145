export * from "./clients";
export * from "./modules";
export * from "./names";
export * from "./services";
export * from "./settings";
