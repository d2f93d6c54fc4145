// Every service's event catalog, for consumers: `import { PROJECT_EVENTS, type ProjectEvent } from
// "@earshot/contracts/events"`. One file per producing domain beside this one.
export * from "./account";
export * from "./alert";
export * from "./integration";
export * from "./keyword";
export * from "./mention";
export * from "./project";
