import { z } from "zod";
import { invalidParams } from "./rpc-errors";

// Request schemas for the resource and prompt handlers that let any params through, so the handler
// judges them and names the bad field: with the SDK's own schemas a params of the wrong shape is answered
// as an internal error carrying the validator's dump (the tools/call parameters are kept apart for the
// same reason, by the JSON-RPC gate).

export const anyParams = <M extends string>(method: M) => z.object({ method: z.literal(method), params: z.unknown().optional() });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The request's params as an object ({} when absent). */
export const paramsOf = (params: unknown): Record<string, unknown> => {
  if (params === undefined) return {};
  if (!isObject(params)) throw invalidParams("params must be a JSON object.", { field: "params" });
  return params;
};

export function stringParam(params: Record<string, unknown>, name: string, required: true): string;
export function stringParam(params: Record<string, unknown>, name: string, required: false): string | undefined;
export function stringParam(params: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = params[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string") throw invalidParams(`params.${name} must be a string.`, { field: `params.${name}` });
  return value;
}

/** An object of strings (a prompt's arguments), {} when absent. */
export const stringsParam = (params: Record<string, unknown>, name: string): Record<string, string> => {
  const value = params[name];
  if (value === undefined) return {};
  if (!isObject(value)) throw invalidParams(`params.${name} must be a JSON object.`, { field: `params.${name}` });
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") throw invalidParams(`params.${name}.${k} must be a string.`, { field: `params.${name}.${k}` });
  }
  return value as Record<string, string>;
};
