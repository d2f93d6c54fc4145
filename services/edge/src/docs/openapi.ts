import { ERROR_CODES } from "@earshot/platform";
import { z } from "zod";
import { isWrite, type Operation, openApiPath } from "../catalog/operation";
import { API_VERSION } from "../http/request-context";

// The OpenAPI 3.1 document, generated from the catalog (JSON Schema 2020-12 straight from the zod schemas).

type Json = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType): Json => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  return rest;
};

export const operationInputSchema = (op: Operation): Json => {
  const shape = { ...(op.input.path?.shape ?? {}), ...(op.input.query?.shape ?? {}), ...(op.input.body?.shape ?? {}) };
  return jsonSchema(z.object(shape).strict());
};

const parameters = (op: Operation): Json[] => {
  const out: Json[] = [];
  for (const [where, schema] of [["path", op.input.path], ["query", op.input.query]] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      const { description, ...propSchema } = prop as Json & { description?: string };
      out.push({
        name,
        in: where,
        required: where === "path" || (js.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: propSchema,
      });
    }
  }
  return out;
};

const problemRef = { $ref: "#/components/responses/Problem" };

export const buildOpenApi = (operations: readonly Operation[], serverUrl: string): Json => {
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    const p = (paths[openApiPath(op.path)] ??= {});
    const writeHeaders = isWrite(op)
      ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 8, maxLength: 128 }, description: "Makes retries safe: a repeat with the same key replays the first response for 24 h." }]
      : [];
    p[op.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.title,
      description: `${op.description}\n\nScope: \`${op.scope}\`. MCP tool: \`${op.name}\`.`,
      tags: [op.tag],
      security: [{ bearer: [op.scope] }],
      parameters: [...parameters(op), ...writeHeaders],
      ...(op.input.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.input.body) } } } } : {}),
      responses: {
        [String(op.successStatus)]: {
          description: "Success",
          content: { "application/json": { schema: { $ref: op.list ? "#/components/schemas/ListEnvelope" : "#/components/schemas/Envelope" } } },
        },
        "400": problemRef,
        "401": problemRef,
        "402": problemRef,
        "403": problemRef,
        "404": problemRef,
        "409": problemRef,
        "429": problemRef,
        "503": problemRef,
      },
      "x-mcp-annotations": op.annotations,
    };
  }
  const meta = {
    type: "object",
    required: ["requestId", "apiVersion"],
    properties: { requestId: { type: "string" }, apiVersion: { type: "string", const: API_VERSION } },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Earshot API",
      version: API_VERSION,
      description: "Social-mention monitoring. Every operation is also an MCP tool of the same name and input schema.",
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key (svc_sk_…) or an OAuth access token." } },
      schemas: {
        Envelope: { type: "object", required: ["data", "meta"], properties: { data: {}, meta } },
        ListEnvelope: {
          type: "object",
          required: ["data", "meta"],
          properties: {
            data: { type: "array", items: {} },
            meta: { ...meta, properties: { ...meta.properties, nextCursor: { type: ["string", "null"] }, limit: { type: "integer" } } },
          },
        },
        Problem: {
          type: "object",
          required: ["type", "title", "status", "detail", "code", "requestId"],
          properties: {
            type: { type: "string", format: "uri" },
            title: { type: "string" },
            status: { type: "integer" },
            detail: { type: "string" },
            code: { type: "string", enum: Object.keys(ERROR_CODES) },
            requestId: { type: "string" },
            instance: { type: "string" },
            errors: {
              type: "array",
              items: { type: "object", required: ["path", "message"], properties: { path: { type: "string" }, message: { type: "string" } } },
            },
          },
        },
      },
      responses: {
        Problem: {
          description: "RFC 9457 problem details",
          content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
        },
      },
    },
  };
};
