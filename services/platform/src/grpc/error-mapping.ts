import { Metadata, status, type ServiceError, type StatusObject } from "@grpc/grpc-js";
import { DomainError, ERROR_CODES, type ErrorCode, isDomainError } from "../errors";
import { isUniqueViolation, isVersionConflict } from "../store/port";

// Domain errors cross a gRPC hop as a status code (for generic tooling) plus the exact domain error in
// binary metadata (for the edge, which must answer with the same code, message and field errors).
export const ERROR_METADATA_KEY = "earshot-error-bin";

const STATUS_BY_CODE: Record<ErrorCode, status> = {
  validation_failed: status.INVALID_ARGUMENT,
  unauthorized: status.UNAUTHENTICATED,
  usage_limited: status.RESOURCE_EXHAUSTED,
  insufficient_scope: status.PERMISSION_DENIED,
  forbidden: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ABORTED,
  idempotency_key_reused: status.ALREADY_EXISTS,
  idempotency_in_progress: status.ABORTED,
  // The position asked for is past what the service still serves (a change feed cursor past its retention).
  cursor_expired: status.OUT_OF_RANGE,
  rate_limited: status.RESOURCE_EXHAUSTED,
  internal: status.INTERNAL,
  unavailable: status.UNAVAILABLE,
};

export const grpcStatusFor = (code: ErrorCode): status => STATUS_BY_CODE[code];

interface WireError {
  code: ErrorCode;
  message: string;
  errors: DomainError["errors"];
  details: DomainError["details"];
}

/**
 * What a thrown error means to a caller. A store version conflict or unique violation that a verb did not
 * handle is still a lost race against another writer, never a fault: the caller may read again and retry.
 */
export const toDomainError = (err: unknown): DomainError => {
  if (isDomainError(err)) return err;
  if (isVersionConflict(err) || isUniqueViolation(err)) {
    return new DomainError("conflict", "Another request changed the same data at the same time; read it again and retry.", { cause: err });
  }
  return new DomainError("internal", "Internal error.");
};

/** Turns anything a handler threw into a status object; unknown errors keep their internals out of it. */
export const toStatusObject = (err: unknown): Partial<StatusObject> => {
  const domain = toDomainError(err);
  const wire: WireError = { code: domain.code, message: domain.message, errors: domain.errors, details: domain.details };
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(wire)));
  // RESOURCE_EXHAUSTED serves both usage and rate limits; the reason tells them apart for plain clients.
  metadata.set("earshot-error-code", domain.code);
  return { code: STATUS_BY_CODE[domain.code], details: domain.message, metadata };
};

/** Reconstructs the domain error a remote handler threw, or classifies a transport failure. */
export const fromServiceError = (err: ServiceError): DomainError => {
  const raw = err.metadata?.get(ERROR_METADATA_KEY)[0];
  if (raw !== undefined) {
    try {
      const wire = JSON.parse(Buffer.isBuffer(raw) ? raw.toString("utf8") : String(raw)) as WireError;
      if (wire.code in ERROR_CODES) {
        return new DomainError(wire.code, wire.message, { errors: wire.errors, details: wire.details, cause: err });
      }
    } catch {
      // fall through to the status-based mapping
    }
  }
  switch (err.code) {
    case status.UNAVAILABLE:
    case status.DEADLINE_EXCEEDED:
    case status.CANCELLED:
      return new DomainError("unavailable", "A service this operation needs did not answer in time.", { cause: err });
    default:
      return new DomainError("internal", "Internal error.", { cause: err });
  }
};

export const isServiceError = (err: unknown): err is ServiceError =>
  typeof err === "object" && err !== null && "code" in err && "metadata" in err && err instanceof Error;
