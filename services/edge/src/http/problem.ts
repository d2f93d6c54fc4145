import { DomainError, ERROR_CODES, type ErrorCode, isDomainError } from "@earshot/platform";
import type { ServerResponse } from "node:http";
import type { Response } from "express";

// RFC 9457 problem details, the one error shape of the API (DESIGN.md "Errors").

export const PROBLEM_TYPE_BASE = "https://earshot.dev/problems/";

/**
 * Errors of the HTTP frame itself (a method a path does not have, a body it cannot decode). Services never
 * raise them, so they stay out of the domain's codes and the gRPC mapping.
 */
export const HTTP_ERROR_CODES = {
  method_not_allowed: { status: 405, title: "Method not allowed" },
  not_acceptable: { status: 406, title: "Not acceptable" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERROR_CODES;

/** An error of the HTTP frame raised where a domain error would be (e.g. a download no Accept value fits). */
export class HttpError extends Error {
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly errors: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode | HttpErrorCode;
  requestId: string;
  instance?: string;
  errors?: Array<{ path: string; message: string }>;
  [extra: string]: unknown;
}

const typeOf = (code: string) => `${PROBLEM_TYPE_BASE}${code.replace(/_/g, "-")}`;

export const toProblem = (err: unknown, requestId: string, instance?: string): Problem => {
  if (err instanceof HttpError) return httpProblem(err.code, err.message, requestId, instance, err.errors);
  // Anything that is not a domain error is a bug: the client learns only that it happened and its request id.
  const e = isDomainError(err) ? err : new DomainError("internal", "An internal error occurred.");
  const { status, title } = ERROR_CODES[e.code];
  return {
    type: typeOf(e.code),
    title,
    status,
    detail: e.message,
    code: e.code,
    requestId,
    ...(instance ? { instance } : {}),
    ...(e.errors.length > 0 ? { errors: e.errors } : {}),
    ...e.details,
  };
};

/** A problem of the HTTP frame (see HTTP_ERROR_CODES). */
export const httpProblem = (
  code: HttpErrorCode,
  detail: string,
  requestId: string,
  instance?: string,
  errors: Array<{ path: string; message: string }> = [],
): Problem => ({
  type: typeOf(code),
  title: HTTP_ERROR_CODES[code].title,
  status: HTTP_ERROR_CODES[code].status,
  detail,
  code,
  requestId,
  ...(instance ? { instance } : {}),
  ...(errors.length > 0 ? { errors } : {}),
});

export const sendProblem = (res: Response, problem: Problem): void => {
  if (problem.code === "rate_limited" && typeof problem.retryAfter === "number") res.setHeader("Retry-After", String(problem.retryAfter));
  res.status(problem.status).type("application/problem+json").send(JSON.stringify(problem));
};

/**
 * A JSON answer written on the Node response, byte for byte as express's `res.status().type().send()`
 * writes it (the type with its charset, the length), for answers written outside express.
 */
export const writeJson = (res: ServerResponse, status: number, type: "application/json" | "application/problem+json", json: string): void => {
  res.statusCode = status;
  res.setHeader("Content-Type", `${type}; charset=utf-8`);
  res.setHeader("Content-Length", String(Buffer.byteLength(json)));
  res.end(json);
};

/** `sendProblem` on the Node response (see writeJson). */
export const writeProblem = (res: ServerResponse, problem: Problem): void => {
  if (problem.code === "rate_limited" && typeof problem.retryAfter === "number") res.setHeader("Retry-After", String(problem.retryAfter));
  writeJson(res, problem.status, "application/problem+json", JSON.stringify(problem));
};
