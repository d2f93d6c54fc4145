import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { refusalOf } from "./rpc-errors";

// How an operation's refusal becomes the JSON-RPC error of a resource read or listing.

const URI = "earshot://projects/prj_01JZZZZZZZZZZZZZZZZZZZZZZZ";
const answer = (status: number, body: Record<string, unknown>) => ({ status, body: { status, ...body } });

describe("refusalOf", () => {
  it("makes a read's 404 MCP's Resource not found, with only the uri in data", () => {
    const err = refusalOf(answer(404, { code: "not_found", detail: "Project not found." }), URI);
    expect({ code: err.code, message: err.message, data: err.data }).toEqual({ code: -32002, message: "Resource not found", data: { uri: URI } });
  });

  it("names the missing scope", () => {
    const err = refusalOf(answer(403, { code: "insufficient_scope", scope: "mentions:read", detail: "This operation needs the mentions:read scope." }), URI);
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toBe(`Reading ${URI} needs the mentions:read scope.`);
    expect(err.data).toMatchObject({ uri: URI, problem: { code: "insufficient_scope", scope: "mentions:read" } });
  });

  it("makes other refusals InvalidParams naming each bad field, and the server's failures InternalError", () => {
    const bad = refusalOf(answer(400, { code: "validation_failed", detail: "The request has invalid fields.", errors: [{ path: "cursor", message: "is not a valid cursor" }] }));
    expect({ code: bad.code, message: bad.message }).toEqual({ code: ErrorCode.InvalidParams, message: "The request has invalid fields: cursor is not a valid cursor." });
    expect(refusalOf(answer(404, { code: "not_found", detail: "Project not found." })).code).toBe(ErrorCode.InvalidParams);
    const down = refusalOf(answer(503, { code: "unavailable", detail: "Retry shortly." }), URI);
    expect({ code: down.code, message: down.message }).toEqual({ code: ErrorCode.InternalError, message: "Retry shortly." });
  });
});
