export * from "./all-in-one";
export * from "./config";
