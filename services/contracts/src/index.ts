// The contract layer: `@earshot/contracts/events` (every service's event catalog), `/matcher` (how a
// keyword matches a post) and `/fields` (field rules several services share).
export * from "./events";
export * from "./fields";
