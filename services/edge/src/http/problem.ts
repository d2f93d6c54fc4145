import { DomainError, ERROR_CODES, type ErrorCode, isDomainError } from "@earshot/platform";
import type { Response } from "express";

// RFC 9457 problem details, the one error shape of the API (DESIGN.md "Errors").

export const PROBLEM_TYPE_BASE = "https://earshot.dev/problems/";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  instance?: string;
  errors?: Array<{ path: string; message: string }>;
  [extra: string]: unknown;
}

export const toProblem = (err: unknown, requestId: string, instance?: string): Problem => {
  // Anything that is not a domain error is a bug: the client learns only that it happened and its request id.
  const e = isDomainError(err) ? err : new DomainError("internal", "An internal error occurred.");
  const { status, title } = ERROR_CODES[e.code];
  return {
    type: `${PROBLEM_TYPE_BASE}${e.code.replace(/_/g, "-")}`,
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

export const sendProblem = (res: Response, problem: Problem): void => {
  if (problem.code === "rate_limited" && typeof problem.retryAfter === "number") res.setHeader("Retry-After", String(problem.retryAfter));
  res.status(problem.status).type("application/problem+json").send(JSON.stringify(problem));
};
