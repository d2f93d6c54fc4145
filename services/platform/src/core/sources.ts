// The platforms mentions are collected from, as the API names them (earshot.common.v1.Source on gRPC).
export const SOURCES = ["x", "reddit", "youtube", "linkedin"] as const;
export type Source = (typeof SOURCES)[number];
