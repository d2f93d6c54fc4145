// The event bus: its port, both adapters, redelivery with dead-letter topics, CloudEvents envelopes with
// consumers that drop repeats, and the event catalogs typed consumers subscribe with.
export * from "./port";
export * from "./in-process";
export * from "./kafka";
export * from "./redelivery";
export * from "./transient";
export * from "./metrics";
export * from "../events/cloud-event";
export * from "../events/consumer";
export * from "../events/event-catalog";
