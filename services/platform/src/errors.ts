// Domain errors: every service throws these; transports (gRPC, HTTP, MCP) translate them.
// `code` is the stable snake_case identifier clients see; the message is safe to show to users.

export const ERROR_CODES = {
  validation_failed: { status: 400, title: "Validation failed" },
  unauthorized: { status: 401, title: "Unauthorized" },
  usage_limited: { status: 402, title: "Usage limited" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  forbidden: { status: 403, title: "Forbidden" },
  not_found: { status: 404, title: "Not found" },
  conflict: { status: 409, title: "Conflict" },
  idempotency_key_reused: { status: 409, title: "Idempotency key reused" },
  idempotency_in_progress: { status: 409, title: "Idempotency request in progress" },
  /** A change feed cursor older than the feed's retention: the problem carries `oldestCursor`. */
  cursor_expired: { status: 410, title: "Cursor expired" },
  rate_limited: { status: 429, title: "Rate limited" },
  internal: { status: 500, title: "Internal server error" },
  unavailable: { status: 503, title: "Service unavailable" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  path: string;
  message: string;
}

export interface DomainErrorInit {
  errors?: FieldError[];
  /** Extra user-safe members, for example `{ limit: "projects" }` or `{ retryAfter: 12 }`. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[];
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, init: DomainErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "DomainError";
    this.code = code;
    this.errors = init.errors ?? [];
    this.details = init.details ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export const isDomainError = (err: unknown): err is DomainError => err instanceof DomainError;

export const validationFailed = (errors: FieldError[], message = "The request has invalid fields.") =>
  new DomainError("validation_failed", message, { errors });

export const notFound = (what: string) => new DomainError("not_found", `${what} was not found.`);

export const forbidden = (message: string) => new DomainError("forbidden", message);

export const conflict = (message: string, details?: Record<string, unknown>) =>
  new DomainError("conflict", message, details ? { details } : {});

export const usageLimited = (limit: string, allowance: number) =>
  new DomainError("usage_limited", `The plan allows ${allowance} ${limit}; this operation would exceed it.`, {
    details: { limit, allowance },
  });

export const rateLimited = (retryAfterSeconds: number, message = "Too many requests.") =>
  new DomainError("rate_limited", message, { details: { retryAfter: retryAfterSeconds } });

export const unavailable = (message = "A service this operation needs is unavailable.") =>
  new DomainError("unavailable", message);
