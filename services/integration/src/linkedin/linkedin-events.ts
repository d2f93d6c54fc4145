// The LinkedIn connection's events are declared with the service's other events in `../events`
// (`@earshot/integration/events`): the catalog gives `integration.linkedin.*` its message
// (LinkedinIntegrationChanged) and `linkedinEvent` stages one. Re-exported here for the verbs beside it.
export { type DisconnectReason, type LinkedinEventFacts, type LinkedinEventType, linkedinEvent } from "../events";
