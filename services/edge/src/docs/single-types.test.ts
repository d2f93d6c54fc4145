import { OPERATIONS } from "../catalog";
import { toolFor } from "../mcp/tools";
import { buildOpenApi } from "./openapi";
import { singleTypes } from "./single-types";

// Every published schema uses one `type` per node (anyOf for nullables), the portable dialect MCP
// clients and function-calling models handle; MCP Inspector's --strict flags type arrays.

const arrayTypes = (node: unknown, path = "$"): string[] => {
  if (Array.isArray(node)) return node.flatMap((n, i) => arrayTypes(n, `${path}[${i}]`));
  if (typeof node !== "object" || node === null) return [];
  const here = Array.isArray((node as { type?: unknown }).type) ? [path] : [];
  return [...here, ...Object.entries(node).flatMap(([k, v]) => arrayTypes(v, `${path}.${k}`))];
};

describe("single-type schemas", () => {
  it("turns a nullable type array into anyOf branches, constraints in the typed branch and annotations beside", () => {
    expect(singleTypes({ type: ["string", "null"], format: "uri", maxLength: 10, description: "A link." })).toEqual({
      description: "A link.",
      anyOf: [{ type: "string", format: "uri", maxLength: 10 }, { type: "null" }],
    });
  });

  it("rewrites nested schemas and leaves single types alone", () => {
    const schema = { type: "object", properties: { a: { type: "integer" }, b: { type: "array", items: { type: ["string", "null"] } } } };
    expect(singleTypes(schema)).toEqual({
      type: "object",
      properties: { a: { type: "integer" }, b: { type: "array", items: { anyOf: [{ type: "string" }, { type: "null" }] } } },
    });
  });

  it("leaves no type array in any MCP tool's input or output schema", () => {
    const found = OPERATIONS.flatMap((op) => {
      const tool = toolFor(op);
      return [...arrayTypes(tool.inputSchema, `${op.name}.inputSchema`), ...arrayTypes(tool.outputSchema, `${op.name}.outputSchema`)];
    });
    expect(found).toEqual([]);
  });

  it("leaves no type array in the OpenAPI document", () => {
    expect(arrayTypes(buildOpenApi(OPERATIONS, "http://localhost/api/v1"))).toEqual([]);
  });
});
