import { DomainError } from "@earshot/platform";
import { clientErrorProblem } from "./client-errors";

// The frame errors a test client cannot provoke and still read the answer of (the client is gone or the
// parser was configured to verify), mapped like the ones it can.

const frameError = (status: number, fields: Record<string, unknown>, message = "x") => Object.assign(new Error(message), { status, statusCode: status, expose: true, ...fields });

describe("frame errors", () => {
  it.each([
    ["request.aborted", 400, "validation_failed", "body"],
    ["request.size.invalid", 400, "validation_failed", "body"],
    ["entity.verify.failed", 403, "validation_failed", "body"],
    ["entity.parse.failed", 400, "validation_failed", "body"],
    ["entity.too.large", 413, "payload_too_large", "body"],
    ["parameters.too.many", 413, "payload_too_large", "body"],
    ["charset.unsupported", 415, "unsupported_media_type", "Content-Type"],
    ["encoding.unsupported", 415, "unsupported_media_type", "Content-Encoding"],
  ])("maps %s (%i) to %s naming %s", (type, status, code, path) => {
    const problem = clientErrorProblem(frameError(status, { type }), "req_1", "/x");
    expect(problem).toMatchObject({ code, requestId: "req_1", instance: "/x", errors: [{ path }] });
    expect(problem?.status).toBeGreaterThanOrEqual(400);
    expect(problem?.status).toBeLessThan(500);
  });

  it("says a body is not valid JSON when the JSON parser refused it", () => {
    const err = Object.assign(new SyntaxError("Unexpected end of JSON input"), { status: 400, type: "entity.parse.failed" });
    expect(clientErrorProblem(err, "req_1")).toMatchObject({ status: 400, errors: [{ path: "body", message: "is not valid JSON" }] });
  });

  it("says where a JSON body broke, by line and column, and why, from the parser's own error", () => {
    const body = '{\n  "name": "Launch",\n  oops\n}';
    let parsed: SyntaxError | undefined;
    try {
      JSON.parse(body);
    } catch (e) {
      parsed = e as SyntaxError;
    }
    const err = Object.assign(parsed as SyntaxError, { status: 400, type: "entity.parse.failed", body });
    const problem = clientErrorProblem(err, "req_1");
    expect(problem?.errors).toEqual([{ path: "body", message: expect.stringMatching(/^is not valid JSON: .+ at line 3, column 3$/) }]);
    expect(problem?.detail).toMatch(/at line 3, column 3\.$/);
    const cut = Object.assign(new SyntaxError("Unexpected end of JSON input"), { status: 400, type: "entity.parse.failed", body: '{"name": ' });
    expect(clientErrorProblem(cut, "req_1")?.errors).toEqual([{ path: "body", message: "is not valid JSON: the body ends before the JSON does at line 1, column 10" }]);
  });

  it("maps the router's failed parameter decoding to 400 naming the path", () => {
    const err = Object.assign(new URIError("Failed to decode param '%E0%A4%A'"), { status: 400, statusCode: 400 });
    expect(clientErrorProblem(err, "req_1")).toMatchObject({ status: 400, code: "validation_failed", errors: [{ path: "path" }] });
  });

  it("leaves server faults (stream.encoding.set is a 500), domain errors and plain errors to the 500 path", () => {
    expect(clientErrorProblem(frameError(500, { type: "stream.encoding.set" }), "req_1")).toBeUndefined();
    expect(clientErrorProblem(new DomainError("not_found", "gone"), "req_1")).toBeUndefined();
    expect(clientErrorProblem(new Error("boom"), "req_1")).toBeUndefined();
    expect(clientErrorProblem("boom", "req_1")).toBeUndefined();
  });
});
