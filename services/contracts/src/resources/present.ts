import { z } from "zod";

// What every resource's schema and presenter share. A resource's schema is what the API publishes (OpenAPI,
// the MCP tools' outputSchema, the webhooks' payloads) and its presenter turns the gRPC message into it,
// typed by that schema so the two cannot drift apart. Times are ISO 8601 UTC strings; a field that can be
// absent is null, never missing.

/** The named resource schemas: OpenAPI lists them under components.schemas by their id. */
export const resourceSchemas = z.registry<{ id: string; description?: string }>();

export const timestamp = z.iso.datetime().describe("ISO 8601, UTC.");
export const optionalTimestamp = timestamp.nullable();

/** A message the service must have sent; its absence is a service fault, never the client's. */
export const required = <T>(message: T | undefined, what: string): T => {
  if (message === undefined) throw new Error(`The service answered without a ${what}.`);
  return message;
};

export const at = (d: Date | undefined, what: string): string => required(d, what).toISOString();
export const atOrNull = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

/** A proto string as one of the schema's values; anything else is a service fault. */
export const oneOf = <const T extends readonly string[]>(values: T, value: string | null, what: string): T[number] => {
  if (value === null || !(values as readonly string[]).includes(value)) throw new Error(`The service answered ${what} "${value}".`);
  return value as T[number];
};

/** An int64 the service sent (ts-proto carries them as decimal strings). */
export const int = (value: string, what: string): number => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`The service answered ${what} "${value}".`);
  return n;
};

/** The API's word for an enum value a service sent; null for UNSPECIFIED and values this build does not know. */
export const apiWord = <E extends number>(words: { word(value: E): string | undefined }, value: E): string | null => words.word(value) ?? null;
