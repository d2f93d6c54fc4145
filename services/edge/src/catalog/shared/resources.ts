// What every resource's schema and presenter share, the contract layer's (`@earshot/contracts/resources`):
// the resources a webhook also carries are declared and presented there, once for both; the edge's own
// resources use the same registry and helpers. Times are ISO 8601 UTC strings; a field that can be absent
// is null, never missing.
export { at, atOrNull, int, oneOf, optionalTimestamp, required, resourceSchemas, timestamp } from "@earshot/contracts/resources";
