// The document store: its port, both adapters, and the transactional outbox that commits events with the
// writes. Service wiring (store.ts, main.ts) imports this; domain code sees only the port types via core.
export * from "./port";
export { InvalidCursorError } from "./checks";
export * from "./embedded";
export * from "./mongo";
export * from "../outbox/outbox";
export * from "../outbox/effects";
