import { isTool, OPERATIONS, outputComponentId } from "@earshot/edge";
import { WEBHOOK_EVENT_TYPES } from "@earshot/webhook/fields";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { makeTempDir } from "../../../platform/src/testing/tmp";
import { contractCheck, openApiDocument, standalone, strictAjv } from "./contract";
import { type Harness, opByName, startHarness } from "./harness";

// The published contract: every operation names the resource its data holds, the OpenAPI document and
// the MCP tool list compile as strict JSON Schema 2020-12, and a generated client gets a typed data for
// every operation. (Every API test also checks each response against the document, through the harness.)

type Json = Record<string, unknown>;
const doc = openApiDocument();
const components = (doc.components as { schemas: Record<string, Json> }).schemas;

describe("the document's own description", () => {
  it("describes every tag it groups operations under, and says whom to contact", () => {
    const tags = doc.tags as Array<{ name: string; description?: string }>;
    expect(tags.map((t) => t.name).sort()).toEqual([...new Set(OPERATIONS.map((o) => o.tag))].sort());
    for (const tag of tags) expect({ tag: tag.name, described: (tag.description ?? "").length > 10 }).toEqual({ tag: tag.name, described: true });
    expect((doc.info as { contact?: { url?: string } }).contact?.url).toMatch(/^https?:\/\/[^/]+\/$/);
  });
});

describe("declared response schemas", () => {
  it("names a resource component with properties as the data of every operation", () => {
    for (const op of OPERATIONS) {
      const id = outputComponentId(op);
      const component = components[id] as { type?: string; properties?: Json; additionalProperties?: unknown };
      expect({ op: op.name, type: component.type, closed: component.additionalProperties }).toEqual({ op: op.name, type: "object", closed: false });
      expect(Object.keys(component.properties ?? {}).length).toBeGreaterThan(1);
    }
  });

  it("answers each operation in an envelope of its own resource, a page of them for lists, and errors as problem+json", () => {
    const paths = doc.paths as Record<string, Record<string, { operationId: string; responses: Record<string, Json> }>>;
    for (const methods of Object.values(paths)) {
      for (const operation of Object.values(methods)) {
        const op = opByName(operation.operationId);
        if (op.download) {
          // A download answers the file: each of its formats, JSON lines naming the resource of each line.
          const content = (operation.responses[String(op.successStatus)] as { content: Record<string, Json> }).content;
          expect(Object.keys(content).sort()).toEqual(Object.values(op.download.formats).map((f) => f.mediaType).sort());
          for (const f of Object.values(op.download.formats)) {
            expect(content[f.mediaType]).toEqual({
              schema: { type: "string", description: f.description },
              ...(f.lines ? { "x-itemSchema": { $ref: `#/components/schemas/${outputComponentId(op)}` } } : {}),
            });
          }
          expect(operation.responses["406"]).toEqual({ $ref: "#/components/responses/Problem" });
          continue;
        }
        const success = operation.responses[String(op.successStatus)] as { content: { "application/json": { schema: { properties: Json } } } };
        const { data, meta } = success.content["application/json"].schema.properties as { data: Json; meta: Json };
        const ref = { $ref: `#/components/schemas/${outputComponentId(op)}` };
        expect(data).toEqual(op.list ? { type: "array", items: ref } : ref);
        const baseMeta = { $ref: `#/components/schemas/${op.list ? "ListMeta" : "Meta"}` };
        // An operation adding members to meta (the change feed's hasMore) declares them beside the base.
        expect(meta).toEqual(op.meta ? { allOf: [baseMeta, { type: "object", required: Object.keys(op.meta), properties: op.meta }] } : baseMeta);
        for (const status of op.problemStatuses ?? []) expect(operation.responses[String(status)]).toEqual({ $ref: "#/components/responses/Problem" });
        expect(operation.responses["404"]).toEqual({ $ref: "#/components/responses/Problem" });
      }
    }
  });

  it("compiles every schema of the document as strict JSON Schema 2020-12", () => {
    const ajv = strictAjv();
    for (const [id, schema] of Object.entries(components)) expect(() => ajv.compile(standalone(schema, doc))).not.toThrow();
    const paths = doc.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Json }> } }>>;
    for (const methods of Object.values(paths)) {
      for (const operation of Object.values(methods)) {
        const body = operation.requestBody?.content["application/json"]?.schema;
        if (body) expect(() => strictAjv().compile(body)).not.toThrow();
      }
    }
  });

  it("refuses a response that drifts from its declared schema, naming the operation", () => {
    const contract = contractCheck(doc);
    const op = opByName("get_usage");
    const meta = { requestId: "req_1", apiVersion: "2026-08-24" };
    const allowance = { allowance: 3, used: 1, available: true };
    const limits = {
      projects: allowance,
      seats: allowance,
      keywords: allowance,
      webhookDeliveriesPerDay: allowance,
      linkedinSyncsPerDay: allowance,
      mentionsThisMonth: { allowance: null, used: 7, available: true },
    };
    expect(() => contract.check(op, 200, { data: { plan: "free", limits }, meta })).not.toThrow();
    expect(() => contract.check(op, 200, { data: { plan: "free" }, meta })).toThrow(/get_usage answered 200/);
    expect(() => contract.check(op, 200, { data: { plan: "free", limits, extra: true }, meta })).toThrow(/get_usage/);
    expect(() => contract.check(op, 404, { data: { plan: "free", limits }, meta })).toThrow(/get_usage answered 404/);
    expect(() => contract.check(op, 200, { data: { plan: "free", limits: { ...limits, mentionsThisMonth: { allowance: "none", used: 7, available: true } } }, meta })).toThrow(/get_usage/);
  });

  it("checks a download line by line against the resource of its JSON lines, and refuses a media type it does not declare", () => {
    const contract = contractCheck(doc);
    const op = opByName("export_mentions");
    const ndjson = (text: string) => contract.check(op, 200, {}, { contentType: "application/x-ndjson", text });
    expect(() => ndjson("")).not.toThrow();
    expect(() => ndjson('{"id":"men_1"}\n')).toThrow(/export_mentions answered a line its OpenAPI schema refuses/);
    expect(() => contract.check(op, 200, {}, { contentType: "text/csv; charset=utf-8", text: "id\r\n" })).not.toThrow();
    expect(() => contract.check(op, 200, {}, { contentType: "text/html", text: "<p>" })).toThrow(/does not declare/);
  });
});

describe("webhooks", () => {
  it("publishes one webhook per deliverable event type, its body's data a named resource and its example valid against its schema", () => {
    const webhooks = doc.webhooks as Record<string, { post: { requestBody: { content: { "application/json": { schema: Json; example: { type: string; data: unknown } } } } } }>;
    expect(Object.keys(webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const [type, { post }] of Object.entries(webhooks)) {
      const { schema, example } = post.requestBody.content["application/json"];
      const data = (schema.properties as { data: { $ref: string } }).data.$ref.replace("#/components/schemas/", "");
      expect({ type, data: components[data] !== undefined }).toEqual({ type, data: true });
      const validate = strictAjv().compile(standalone(schema, doc));
      expect({ type, valid: validate(example), errors: validate.errors ?? null }).toEqual({ type, valid: true, errors: null });
      expect(example.type).toBe(type);
      // A body of another type, or data missing a field, is refused.
      expect(validate({ ...example, type: "other.type" })).toBe(false);
      expect(validate({ ...example, data: {} })).toBe(false);
    }
  });
});

describe("MCP tool schemas", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("lists tools whose input and output schemas are objects that compile as strict JSON Schema 2020-12, data described", async () => {
    const owner = await h.newActor();
    const client = new Client({ name: "earshot-contract-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${owner.key}` } } }));
    const { tools } = await client.listTools();
    await client.close();
    expect(tools).toHaveLength(OPERATIONS.filter(isTool).length);
    for (const tool of tools) {
      const op = opByName(tool.name);
      const ajv = strictAjv();
      expect(tool.inputSchema.type).toBe("object");
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      const output = tool.outputSchema as { type: string; properties: { data: Json & { items?: Json; properties?: Json } } };
      expect(output.type).toBe("object");
      expect(() => ajv.compile(output)).not.toThrow();
      const data = op.list ? output.properties.data.items : output.properties.data;
      expect({ tool: tool.name, type: data?.type }).toEqual({ tool: tool.name, type: "object" });
      expect(Object.keys(data?.properties ?? {}).length).toBeGreaterThan(1);
    }
  });
});

describe("a client generated from the document", () => {
  /** Type-checks `source` in memory and returns its checker and file. */
  const typeCheck = (source: string) => {
    const fileName = "/virtual/contract.ts";
    const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ["lib.es2022.d.ts"], types: [] };
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, version, ...rest) => (name === fileName ? ts.createSourceFile(name, source, version) : read(name, version, ...rest));
    const program = ts.createProgram([fileName], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    return { checker: program.getTypeChecker(), file: program.getSourceFile(fileName) as ts.SourceFile, diagnostics };
  };

  const trivial = ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Never;

  it("gets a typed data, never unknown, never or {}, for every operation (openapi-typescript)", async () => {
    // The generator's own command line, as a client project would run it (it is an ES module package).
    const tmp = await makeTempDir("earshot-openapi-");
    let generated: string;
    try {
      const input = join(tmp.dir, "openapi.json");
      const output = join(tmp.dir, "earshot.d.ts");
      await writeFile(input, JSON.stringify(doc));
      const cli = join(require.resolve("openapi-typescript/package.json"), "..", "bin", "cli.js");
      await promisify(execFile)(process.execPath, [cli, input, "--output", output]);
      generated = await readFile(output, "utf8");
    } finally {
      await tmp.cleanup();
    }
    const documents = OPERATIONS.filter((op) => !op.download);
    const aliases = documents.map(
      (op) => `export type Data_${op.name} = operations["${op.name}"]["responses"][${op.successStatus}]["content"]["application/json"]["data"];`,
    );
    // A download's formats are text bodies of their media types.
    for (const op of OPERATIONS.filter((o) => o.download)) {
      for (const f of Object.values(op.download!.formats)) {
        aliases.push(`export const file_${op.name}_${f.extension}: string = "" as operations["${op.name}"]["responses"][${op.successStatus}]["content"]["${f.mediaType}"];`);
      }
    }
    const { checker, file, diagnostics } = typeCheck(`${generated}\n${aliases.join("\n")}\n`);
    expect(diagnostics).toEqual([]);
    const found = new Map<string, ts.Type>();
    ts.forEachChild(file, (node) => {
      if (ts.isTypeAliasDeclaration(node) && node.name.text.startsWith("Data_")) found.set(node.name.text.slice(5), checker.getTypeAtLocation(node.name));
    });
    for (const op of documents) {
      let type = found.get(op.name) as ts.Type;
      expect({ op: op.name, trivial: (type.flags & trivial) !== 0 }).toEqual({ op: op.name, trivial: false });
      if (op.list) {
        expect({ op: op.name, array: checker.isArrayType(type) }).toEqual({ op: op.name, array: true });
        type = checker.getTypeArguments(type as ts.TypeReference)[0] as ts.Type;
      }
      const properties = checker.getPropertiesOfType(type);
      expect({ op: op.name, properties: properties.length > 1 }).toEqual({ op: op.name, properties: true });
      for (const property of properties) {
        const propertyType = checker.getTypeOfSymbolAtLocation(property, file);
        expect({ op: op.name, property: property.name, trivial: (propertyType.flags & trivial) !== 0 }).toEqual({
          op: op.name,
          property: property.name,
          trivial: false,
        });
      }
    }
  });
});
