// The resources as the API presents them, each a schema and its presenter (gRPC message → JSON), shared by
// the edge (REST and MCP answers) and the webhook service (the `data` of each delivery), so a webhook's
// data is the API's resource by construction. What depends on the caller (a project's `role`, the LinkedIn
// sync allowance) is the edge's, added to these.
export * from "./present";
export * from "./project";
export * from "./keyword";
export * from "./keyword-group";
export * from "./mention";
export * from "./linkedin";
