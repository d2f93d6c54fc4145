import { type FieldError, validationFailed, zodFieldErrors } from "@earshot/platform";
import type { z } from "zod";
import type { Operation } from "./operation";
import { unknownField } from "./unknown-fields";

// Validates the path, query and body parts of a request with the operation's schemas and reports every
// bad field by name (the same names MCP clients use, since MCP merges the parts into one object).

export interface RawInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

export const validateInput = (op: Operation, raw: RawInput): Record<string, unknown> => {
  const errors: FieldError[] = [];
  const merged: Record<string, unknown> = {};
  // A query parameter the operation does not take is refused, naming it (and the likely typo it is of).
  for (const key of Object.keys(raw.query)) if (!declares(op.input.query, key)) errors.push(unknownField(op, key, "query"));
  const parts: Array<[z.ZodObject | undefined, unknown, boolean]> = [
    [op.input.path, raw.path, false],
    [op.input.query, raw.query, false],
    [op.input.body, raw.body ?? {}, true],
  ];
  for (const [schema, value, isBody] of parts) {
    if (!schema) continue;
    if (isBody && (value === null || typeof value !== "object" || Array.isArray(value))) {
      errors.push({ path: "body", message: "must be a JSON object" });
      continue;
    }
    // Unknown query parameters were refused above; the schema reads the declared ones.
    const input = isBody || schema !== op.input.query ? value : pickKnown(schema, value as Record<string, unknown>);
    const parsed = schema.safeParse(input);
    if (parsed.success) Object.assign(merged, parsed.data);
    else errors.push(...zodFieldErrors(parsed.error.issues));
  }
  if (errors.length > 0) {
    const fields = [...new Set(errors.map((e) => e.path))].join(", ");
    throw validationFailed(errors, `The request has invalid fields: ${fields}.`);
  }
  return merged;
};

// Input keys are strangers' strings: `valueOf` or `__proto__` must never match what a schema shape
// inherits from Object.prototype, so shapes are only ever asked about their own properties.
const declares = (schema: z.ZodObject | undefined, key: string): boolean => schema !== undefined && Object.hasOwn(schema.shape, key);

const pickKnown = (schema: z.ZodObject, value: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([k]) => declares(schema, k)));

/** The inverse of merging: which part each field of a combined (MCP) input belongs to. */
export const splitInput = (op: Operation, combined: Record<string, unknown>): RawInput => {
  const path: Array<[string, unknown]> = [];
  const query: Array<[string, unknown]> = [];
  const body: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(combined)) {
    if (declares(op.input.path, k)) path.push([k, v]);
    else if (declares(op.input.query, k)) query.push([k, v]);
    else body.push([k, v]);
  }
  // fromEntries defines own properties, so a `__proto__` field stays a field (and is refused as unknown)
  // instead of becoming the object's prototype.
  return { path: Object.fromEntries(path), query: Object.fromEntries(query), body: Object.fromEntries(body) };
};
