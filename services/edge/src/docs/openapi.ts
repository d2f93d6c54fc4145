import { ERROR_CODES } from "@earshot/platform";
import { z } from "zod";
import { isTool, type Operation, openApiPath, takesIdempotencyKey } from "../catalog/operation";
import { resourceSchemas } from "../catalog/shared/resources";
import { HTTP_ERROR_CODES } from "../http/problem";
import { API_VERSION } from "../http/request-context";
import { singleTypes } from "./single-types";
import { webhookWebhooks } from "./webhooks";

// The OpenAPI 3.1 document, generated from the catalog (JSON Schema 2020-12 straight from the zod schemas):
// request schemas from each operation's inputs, responses as the { data, meta } envelope around the
// operation's resource schema (named under components.schemas), errors as problem+json.

type Json = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType): Json => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  return singleTypes(rest);
};

const COMPONENTS = "#/components/schemas/";

/**
 * The rules on inputs that JSON Schema cannot state, said once for every field; the rest are in each
 * field's schema (maxLength, pattern, format, enum) or, when particular to it, its description.
 */

/** What each tag of the document groups, for readers and generators (every tag has one: a test says so). */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Projects: "Projects hold keywords and collect mentions; archived ones keep their data, read-only.",
  Members: "Who may see and change a project (owner, editor, viewer), and the invitations that add them.",
  Keywords: "What a project tracks on each source, with aliases, excluded terms and filters.",
  "Keyword groups": "Keywords grouped (My brand, Competitors, your own) for filters and share of voice.",
  Mentions: "What the keywords matched: list, filter, triage (status, category), analytics and export.",
  Categories: "A project's own categories to file mentions under.",
  "Mention views": "Saved list_mentions filters, shared by a project's members.",
  Alerts: "Email alert rules: the Daily Digest every project has, and instant alerts on matching mentions.",
  Webhooks: "Signed (Standard Webhooks) HTTPS deliveries of events to your endpoints, or new mentions as Slack and Discord messages; their log, tests and redelivery.",
  Account: "The caller's account, plan usage and deactivation.",
  "API keys": "Keys for the REST API and the MCP server, each with its scopes.",
  Integrations: "The health of each source a project collects from.",
  LinkedIn: "Connecting a LinkedIn Page, choosing it, syncing it and disconnecting it.",
};

const tagDescription = (tag: string): string => {
  const text = TAG_DESCRIPTIONS[tag];
  if (!text) throw new Error(`the OpenAPI tag ${tag} has no description: add one to TAG_DESCRIPTIONS`);
  return text;
};

export const INPUT_RULES =
  "Texts are limited in characters as people see them: a letter with its accents or an emoji sequence is one character. " +
  "A text's maxLength is that limit, counted by JSON Schema in code points, so a text within maxLength is within the limit " +
  "(one of composed characters may hold more code points and still be accepted). No character may stack more than 8 combining marks " +
  "or join more than 16 code points. Where a field's description gives an allowance in bytes, it is counted in UTF-8. " +
  "A text that is trimmed is checked once leading and trailing white space is removed.";

/**
 * Every resource schema, by id, referring to each other through components.schemas. Listed in order of
 * their ids, not of registration (which follows the order the resources' modules load in).
 */
const resourceComponents = (): Record<string, Json> => {
  const { schemas } = z.toJSONSchema(resourceSchemas, { target: "draft-2020-12", io: "output", uri: (id) => `${COMPONENTS}${id}` });
  return Object.fromEntries(
    Object.entries(schemas)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, schema]) => {
        const { $schema: _s, $id: _i, ...rest } = schema as Json;
        return [id, singleTypes(rest)];
      }),
  );
};

/** The component an operation's data is made of; an operation whose output is not a named resource is a catalog bug. */
export const outputComponentId = (op: Operation): string => {
  const id = resourceSchemas.get(op.output)?.id;
  if (!id) throw new Error(`The output of ${op.name} is not a registered resource schema.`);
  return id;
};

export const META_SCHEMA = {
  type: "object",
  required: ["requestId", "apiVersion"],
  properties: { requestId: { type: "string" }, apiVersion: { type: "string", const: API_VERSION } },
} as const;

export const LIST_META_SCHEMA = {
  ...META_SCHEMA,
  required: [...META_SCHEMA.required, "nextCursor", "limit"],
  properties: {
    ...META_SCHEMA.properties,
    nextCursor: { anyOf: [{ type: "string" }, { type: "null" }], description: "Pass as cursor for the next page; null at the end." },
    limit: { type: "integer", minimum: 1, maximum: 100 },
  },
} as const;

/** The success body: `data` (the resource, or a page of them) and `meta`. */
export const envelopeSchema = (data: Json, list: boolean, meta: { single: Json; list: Json }): Json => ({
  type: "object",
  required: ["data", "meta"],
  properties: { data: list ? { type: "array", items: data } : data, meta: list ? meta.list : meta.single },
});

/** The meta of an operation that adds members to it (its `meta`): the base with them. */
const metaOf = (op: Operation, base: Json): Json =>
  op.meta ? { allOf: [base, { type: "object", required: Object.keys(op.meta), properties: op.meta }] } : base;

/** An operation's success body with the resource inlined, for consumers without the components (MCP tools). */
const outputSchemas = new WeakMap<Operation, Json>();
export const operationOutputSchema = (op: Operation): Json => {
  let schema = outputSchemas.get(op);
  if (!schema) {
    const { $schema: _ignored, ...data } = z.toJSONSchema(op.output, { target: "draft-2020-12", io: "output" }) as Json;
    schema = envelopeSchema(singleTypes(data), op.list === true, { single: metaOf(op, META_SCHEMA), list: metaOf(op, LIST_META_SCHEMA) });
    outputSchemas.set(op, schema);
  }
  return schema;
};

export const operationInputSchema = (op: Operation): Json => {
  const shape = { ...(op.input.path?.shape ?? {}), ...(op.input.query?.shape ?? {}), ...(op.input.body?.shape ?? {}) };
  return jsonSchema(z.object(shape).strict());
};

const LIST_PARAMETER_NOTE = "Repeat the parameter for several values, or separate them with commas in one.";

const parameters = (op: Operation): Json[] => {
  const out: Json[] = [];
  for (const [where, schema] of [["path", op.input.path], ["query", op.input.query]] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      const { description, ...propSchema } = prop as Json & { description?: string };
      // A list: form style, exploded (status=open&status=done), which the router keeps as a list; the
      // comma-separated form the schema also takes is stated in words, as one parameter can declare one style.
      const list = propSchema.type === "array";
      const text = list ? [description, LIST_PARAMETER_NOTE].filter(Boolean).join(" ") : description;
      out.push({
        name,
        in: where,
        required: where === "path" || (js.required ?? []).includes(name),
        ...(text ? { description: text } : {}),
        ...(list ? { style: "form", explode: true } : {}),
        schema: propSchema,
      });
    }
  }
  return out;
};

const listParameters = new WeakMap<Operation, ReadonlySet<string>>();
/** The query parameters that take several values (their schema is an array): the router keeps their repeats. */
export const listQueryParameters = (op: Operation): ReadonlySet<string> => {
  let names = listParameters.get(op);
  if (!names) {
    const props = op.input.query ? ((jsonSchema(op.input.query).properties ?? {}) as Record<string, Json>) : {};
    names = new Set(Object.entries(props).filter(([, p]) => p.type === "array").map(([name]) => name));
    listParameters.set(op, names);
  }
  return names;
};

const problemRef = { $ref: "#/components/responses/Problem" };

/** The success of an operation: its { data, meta } envelope, or for a download the file in each format. */
const successResponse = (op: Operation): Json => {
  const data = { $ref: `${COMPONENTS}${outputComponentId(op)}` };
  if (op.download) {
    return {
      description: "The file, streamed as it is read.",
      headers: { "Content-Disposition": { description: 'attachment; filename="…"', schema: { type: "string" } } },
      content: Object.fromEntries(
        Object.values(op.download.formats).map((f) => [
          f.mediaType,
          // The body as a whole is text; for JSON lines each line's schema is given as OpenAPI 3.2's itemSchema says it.
          { schema: { type: "string", description: f.description }, ...(f.lines ? { "x-itemSchema": data } : {}) },
        ]),
      ),
    };
  }
  return {
    description: "Success",
    content: {
      "application/json": {
        schema: envelopeSchema(data, op.list === true, { single: metaOf(op, { $ref: `${COMPONENTS}Meta` }), list: metaOf(op, { $ref: `${COMPONENTS}ListMeta` }) }),
      },
    },
  };
};

export const buildOpenApi = (operations: readonly Operation[], serverUrl: string): Json => {
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    const p = (paths[openApiPath(op.path)] ??= {});
    const writeHeaders = takesIdempotencyKey(op)
      ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 8, maxLength: 128 }, description: "Makes retries safe: a repeat with the same key replays the first response for 24 h." }]
      : [];
    p[op.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.title,
      description: `${op.description}\n\nScope: \`${op.scope}\`. ${isTool(op) ? `MCP tool: \`${op.name}\`.` : "REST only: not an MCP tool."}`,
      tags: [op.tag],
      security: [{ bearer: [op.scope] }],
      parameters: [...parameters(op), ...writeHeaders],
      ...(op.input.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.input.body) } } } } : {}),
      responses: {
        [String(op.successStatus)]: successResponse(op),
        "400": problemRef,
        "401": problemRef,
        "402": problemRef,
        "403": problemRef,
        "404": problemRef,
        ...(op.download ? { "406": problemRef } : {}),
        "409": problemRef,
        ...Object.fromEntries((op.problemStatuses ?? []).map((status) => [String(status), problemRef])),
        "429": problemRef,
        "503": problemRef,
        default: problemRef,
      },
      ...(isTool(op) ? { "x-mcp-annotations": op.annotations } : {}),
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Earshot API",
      version: API_VERSION,
      description: `Social-mention monitoring. Every operation is also an MCP tool of the same name and input schema.\n\n${INPUT_RULES}`,
      // Who answers for this instance: its operator, at its front door (which says where to look further).
      contact: { name: "This Earshot instance's operator", url: `${new URL(serverUrl).origin}/` },
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name, description: tagDescription(name) })),
    paths,
    webhooks: webhookWebhooks(),
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key (svc_sk_…) or an OAuth access token." } },
      schemas: {
        ...resourceComponents(),
        Meta: META_SCHEMA,
        ListMeta: LIST_META_SCHEMA,
        Problem: {
          type: "object",
          required: ["type", "title", "status", "detail", "code", "requestId"],
          properties: {
            type: { type: "string", format: "uri" },
            title: { type: "string" },
            status: { type: "integer", minimum: 400, maximum: 599 },
            detail: { type: "string" },
            code: { type: "string", enum: [...Object.keys(ERROR_CODES), ...Object.keys(HTTP_ERROR_CODES)] },
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
