import { buildOpenApi, OPERATIONS, type Operation, openApiPath } from "@earshot/edge";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

// The published contract as a client sees it: the OpenAPI document the gateway serves, compiled by a
// strict JSON Schema 2020-12 validator. API tests run every response through it, so an answer that
// drifts from its declared schema fails whichever test provoked it.

type Json = Record<string, unknown>;

/** A strict 2020-12 validator with the standard formats, as a client generated from the document would use. */
export const strictAjv = (): Ajv2020 => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
};

export const openApiDocument = (): Json => buildOpenApi(OPERATIONS, "http://localhost:8080/api/v1");

/**
 * A schema of the document made standalone: references to `#/components/schemas/X` become `#/$defs/X`
 * with the components carried along, so it compiles without the OpenAPI wrapper around it.
 */
export const standalone = (schema: unknown, doc: Json): Json => {
  const components = ((doc.components as Json).schemas ?? {}) as Json;
  const rewrite = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll('"#/components/schemas/', '"#/$defs/')) as T;
  return { ...rewrite(schema as Json), $defs: rewrite(components) };
};

export interface ContractCheck {
  /**
   * Throws naming the operation and the mismatch when `body` is not what the document declares for
   * `status`; a download's success is checked as sent (`raw`): a declared media type, and for JSON lines
   * each line against the line schema.
   */
  check(op: Operation, status: number, body: unknown, raw?: { contentType: string | null; text: string }): void;
}

type MediaTypes = Record<string, { schema: unknown; "x-itemSchema"?: unknown }>;

export const contractCheck = (doc: Json = openApiDocument()): ContractCheck => {
  const ajv = strictAjv();
  const cache = new Map<string, ValidateFunction>();
  const compiled = (key: string, schema: () => unknown) => {
    let fn = cache.get(key);
    if (!fn) {
      fn = ajv.compile(standalone(schema(), doc));
      cache.set(key, fn);
    }
    return fn;
  };
  const paths = doc.paths as Record<string, Record<string, { responses: Record<string, { content?: MediaTypes }> }>>;
  const declared = (op: Operation, status: number) => {
    const content = paths[openApiPath(op.path)]?.[op.method.toLowerCase()]?.responses[String(status)]?.content;
    if (!content) throw new Error(`${op.name} answered ${status}, a status its OpenAPI document does not declare.`);
    return content;
  };
  const checkDownload = (op: Operation, status: number, raw: { contentType: string | null; text: string }) => {
    const mediaType = (raw.contentType ?? "").split(";")[0]!.trim();
    const media = declared(op, status)[mediaType];
    if (!media) throw new Error(`${op.name} answered ${status} as ${mediaType}, a media type its OpenAPI document does not declare.`);
    if (!media["x-itemSchema"]) return;
    const validate = compiled(`${op.name} ${status} ${mediaType}`, () => media["x-itemSchema"]);
    const lines = raw.text.split("\n");
    if (lines.pop() !== "") throw new Error(`${op.name} answered JSON lines without a final newline.`);
    for (const line of lines) {
      if (!validate(JSON.parse(line))) throw new Error(`${op.name} answered a line its OpenAPI schema refuses: ${ajv.errorsText(validate.errors)}\n${line.slice(0, 2000)}`);
    }
  };
  return {
    check(op, status, body, raw) {
      if (status < 400 && op.download && raw) return checkDownload(op, status, raw);
      const validate =
        status >= 400
          ? compiled("problem", () => ({ $ref: "#/components/schemas/Problem" }))
          : compiled(`${op.name} ${status}`, () => {
              const schema = declared(op, status)["application/json"]?.schema;
              if (!schema) throw new Error(`${op.name} answered ${status} as JSON, which its OpenAPI document does not declare.`);
              return schema;
            });
      if (!validate(body)) {
        throw new Error(`${op.name} answered ${status} with a body its OpenAPI schema refuses: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
      }
    },
  };
};
