// The contract layer: `@earshot/contracts/events` (every service's event catalog), `/matcher` (how a
// keyword matches a post) and `/fields` (field rules several services share); here too, how a post's
// author reads wherever one is shown, and where the web app's pages are (what emails link to).
export * from "./events";
export * from "./fields";
export * from "./author";
export * from "./app-links";
