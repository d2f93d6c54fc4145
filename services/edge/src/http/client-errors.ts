import { DomainError, type ErrorCode, isDomainError } from "@earshot/platform";
import { HTTP_ERROR_CODES, type HttpErrorCode, httpProblem, type Problem, toProblem } from "./problem";

// Errors raised by the HTTP frame before any handler runs (body-parser, raw-body, the router's parameter
// decoding) carry a 4xx `status` (http-errors). They are the client's mistake and must read as such on
// every route, pages and OAuth endpoints included: a problem with that status naming what was wrong,
// never a 500.

interface FrameError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  charset?: unknown;
  encoding?: unknown;
  limit?: unknown;
  code?: unknown;
  message?: unknown;
}

type Mapped = { code: ErrorCode | HttpErrorCode; detail: string; path: string; message: string };

/** Where a JSON body broke, as a person finds it in their editor: line and column (1-based), and why. */
export const jsonBreak = (error: SyntaxError, body: unknown): { where: string; why: string } | undefined => {
  const text = typeof body === "string" ? body : undefined;
  // Node 20 says "… in JSON at position 12"; later versions add "(line 2 column 3)".
  const position = /at position (\d+)/.exec(error.message);
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(error.message);
  const why = error.message.replace(/\s*\(line \d+ column \d+\)/, "").replace(/ in JSON at position \d+.*$/, "").replace(/^Unexpected end of JSON input$/, "the body ends before the JSON does");
  if (lineColumn) return { where: `line ${lineColumn[1]}, column ${lineColumn[2]}`, why };
  if (position && text !== undefined) {
    const before = text.slice(0, Number(position[1]));
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    return { where: `line ${line}, column ${column}`, why };
  }
  if (/end of JSON input/.test(error.message) && text !== undefined) {
    const lines = text.split("\n");
    return { where: `line ${lines.length}, column ${(lines.at(-1) ?? "").length + 1}`, why };
  }
  return undefined;
};

const jsonSyntax = (error: SyntaxError, body: unknown): Mapped => {
  const at = jsonBreak(error, body);
  if (!at) return { code: "validation_failed", detail: "The request body is not valid JSON.", path: "body", message: "is not valid JSON" };
  return {
    code: "validation_failed",
    detail: `The request body is not valid JSON: ${at.why} at ${at.where}.`,
    path: "body",
    message: `is not valid JSON: ${at.why} at ${at.where}`,
  };
};

const byType = (e: FrameError): Mapped | undefined => {
  switch (e.type) {
    case "entity.parse.failed":
      // The JSON parser's failures are SyntaxErrors; others come from the form parser.
      return e instanceof SyntaxError
        ? jsonSyntax(e, (e as { body?: unknown }).body)
        : { code: "validation_failed", detail: "The request body could not be parsed.", path: "body", message: "could not be parsed" };
    case "entity.verify.failed":
      return { code: "validation_failed", detail: "The request body was rejected.", path: "body", message: "failed verification" };
    case "entity.too.large": {
      const limit = typeof e.limit === "number" ? ` of ${e.limit} bytes` : "";
      return { code: "payload_too_large", detail: `The request body is larger than the limit${limit}.`, path: "body", message: `is larger than the limit${limit}` };
    }
    case "parameters.too.many":
      return { code: "payload_too_large", detail: "The request body has too many parameters.", path: "body", message: "has too many parameters" };
    case "request.aborted":
      return { code: "validation_failed", detail: "The request body ended early.", path: "body", message: "was cut off before it ended" };
    case "request.size.invalid":
      return { code: "validation_failed", detail: "The request body does not match its Content-Length.", path: "body", message: "is not as long as Content-Length says" };
    case "charset.unsupported": {
      const charset = typeof e.charset === "string" ? `"${e.charset.slice(0, 40)}" ` : "";
      return {
        code: "unsupported_media_type",
        detail: `The charset ${charset}is not supported; send UTF-8.`,
        path: "Content-Type",
        message: `charset ${charset}is not supported`,
      };
    }
    case "encoding.unsupported": {
      const encoding = typeof e.encoding === "string" ? `"${e.encoding.slice(0, 40)}" ` : "";
      return {
        code: "unsupported_media_type",
        detail: `The content encoding ${encoding}is not supported; send gzip, deflate, br or none.`,
        path: "Content-Encoding",
        message: `${encoding}is not supported`,
      };
    }
    default:
      return undefined;
  }
};

const statusOf = (e: FrameError): number | undefined => {
  const s = typeof e.status === "number" ? e.status : e.statusCode;
  return typeof s === "number" && Number.isInteger(s) ? s : undefined;
};

const otherwise = (err: FrameError, status: number): Mapped => {
  // The router's decodeURIComponent of a path parameter (a URIError with status 400).
  if (err instanceof URIError || (typeof err.message === "string" && err.message.startsWith("Failed to decode param"))) {
    return { code: "validation_failed", detail: "The request path has a malformed %-escape.", path: "path", message: "has a malformed %-escape" };
  }
  // zlib's errors, when the body is not what its Content-Encoding says.
  if (typeof err.code === "string" && err.code.startsWith("Z_")) {
    return { code: "validation_failed", detail: "The request body could not be decoded with its Content-Encoding.", path: "body", message: "does not match its Content-Encoding" };
  }
  if (status === 413) return { code: "payload_too_large", detail: "The request body is too large.", path: "body", message: "is too large" };
  if (status === 415) return { code: "unsupported_media_type", detail: "The request's media type is not supported.", path: "Content-Type", message: "is not supported" };
  return { code: "validation_failed", detail: "The request is malformed.", path: "request", message: "is malformed" };
};

const isHttpErrorCode = (code: string): code is HttpErrorCode => code in HTTP_ERROR_CODES;

/** The problem for a 4xx error of the HTTP frame; undefined for domain errors and anything else. */
export const clientErrorProblem = (err: unknown, requestId: string, instance?: string): Problem | undefined => {
  if (isDomainError(err) || typeof err !== "object" || err === null) return undefined;
  const e = err as FrameError;
  const status = statusOf(e);
  if (status === undefined || status < 400 || status > 499) return undefined;
  const m = byType(e) ?? otherwise(e, status);
  const errors = [{ path: m.path, message: m.message }];
  if (isHttpErrorCode(m.code)) return httpProblem(m.code, m.detail, requestId, instance, errors);
  return toProblem(new DomainError(m.code, m.detail, { errors }), requestId, instance);
};
