import { type FieldError, validationFailed } from "@earshot/platform";
import type { IncomingMessage } from "node:http";
import type { Request } from "express";
import { isWrite, type Operation, openApiPath } from "../catalog/operation";
import { HttpError } from "../http/problem";

// What a REST write's body may be. Every write reads JSON: one with body fields from its body, one
// without (a DELETE) its query fields from the query or from a JSON body, so a client that puts
// `projectId` in the body of `DELETE /integrations/linkedin` is understood instead of told the field is
// missing. A body of another media type is refused (415), never read as no body. GETs ignore bodies.

export const JSON_MEDIA_TYPES = ["application/json", "application/*+json"];

/** Whether the request carries a body at all (a `Content-Length: 0` carries none). */
export const carriesBody = (req: IncomingMessage): boolean => {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
};

/** A write with a body that is not JSON: 415 naming the media type the operation takes. */
export const checkBodyMediaType = (op: Operation, req: Request): void => {
  if (!isWrite(op) || !carriesBody(req) || req.is(JSON_MEDIA_TYPES)) return;
  const sent = req.get("content-type");
  const what = sent ? `Content-Type ${sent.slice(0, 80)}` : "no Content-Type";
  throw new HttpError("unsupported_media_type", `${op.name} reads a JSON body, and this body came with ${what}: send it with Content-Type: application/json.`, [
    { path: "Content-Type", message: "must be application/json" },
  ]);
};

const declares = (schema: Operation["input"]["query"], key: string): boolean => schema !== undefined && Object.hasOwn(schema.shape, key);

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * A write without body fields: its JSON body's fields are its query fields (an empty or absent body
 * changes nothing). A path field, an unknown one, or a field given twice with two values is a 400 that
 * says where the field goes.
 */
export const queryWithBodyFields = (op: Operation, query: Record<string, unknown>, body: unknown): Record<string, unknown> => {
  if (op.input.body || !isWrite(op) || body === undefined) return query;
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw validationFailed([{ path: "body", message: "must be a JSON object" }]);
  const errors: FieldError[] = [];
  const merged = { ...query };
  const where = `/api/v1${openApiPath(op.path)}`;
  for (const [key, value] of Object.entries(body)) {
    if (declares(op.input.query, key)) {
      if (Object.hasOwn(query, key) && !sameValue(query[key], value)) errors.push({ path: key, message: "is given in the query and in the body with different values; give it once" });
      else merged[key] = value;
    } else if (declares(op.input.path, key)) {
      errors.push({ path: key, message: `goes in the path (${where}), not in the body` });
    } else {
      const fields = Object.keys(op.input.query?.shape ?? {});
      errors.push({ path: key, message: fields.length > 0 ? `is not a field of ${op.name} (its body may carry only ${fields.join(", ")})` : `is not a field of ${op.name}, which takes no body` });
    }
  }
  if (errors.length > 0) throw validationFailed(errors, `The request has invalid fields: ${errors.map((e) => e.path).join(", ")}.`);
  return merged;
};
