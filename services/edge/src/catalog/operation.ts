// The operation contract, for the catalog's declarations: it is the pipeline's (pipeline/operation.ts),
// which runs every operation, so the arrows go from the catalog to the pipeline only.
export * from "../pipeline/operation";
