import { OPERATIONS, operationInputSchema, openApiPath } from "@earshot/edge";
import { type Harness, startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

describe("API documents", () => {
  it("describes every catalog operation in the OpenAPI 3.1 document", async () => {
    const doc = (await (await fetch(`${h.url}/api/v1/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; requestBody?: { content: { "application/json": { schema: unknown } } } }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    for (const op of OPERATIONS) {
      const entry = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];
      expect(entry?.operationId).toBe(op.name);
      if (op.input.body) {
        const body = entry?.requestBody?.content["application/json"].schema as { properties: Record<string, unknown> };
        const combined = operationInputSchema(op) as { properties: Record<string, unknown> };
        for (const [k, v] of Object.entries(body.properties)) expect(combined.properties[k]).toEqual(v);
      }
    }
  });

  it("serves a readable reference page that works offline", async () => {
    const res = await fetch(`${h.url}/docs`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).not.toMatch(/<script|https?:\/\/cdn/i);
    for (const op of OPERATIONS) expect(html).toContain(`id="${op.name}"`);
  });
});
