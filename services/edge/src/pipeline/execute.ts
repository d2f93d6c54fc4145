import { type Clock, DomainError, type FieldError, isDomainError, type Logger, runWithCaller, runWithIdempotencyKey, validationFailed } from "@earshot/platform";
import type { Backends } from "../backends";
import { isStreamResult, type Operation, takesIdempotencyKey } from "./operation";
import { HttpError, toProblem } from "../http/problem";
import { API_VERSION } from "../http/request-context";
import { addressKeyOf } from "./address-key";
import type { CredentialVerifier } from "./credentials";
import { fingerprintOf, type IdempotencyStore, type StoredResponse, validateIdempotencyKey } from "./idempotency";
import type { MembershipCache } from "./memberships";
import { callerFor, type Principal } from "./principal";
import type { RateLimitDecision, RateLimiter } from "./rate-limit";
import { type RawInput, validateInput } from "./validate";
import { WaitSlots } from "./wait-slots";

// The one request pipeline every operation runs through, whichever transport brought it (REST or MCP):
// authenticate → rate limit → scope → validate → idempotency → caller → handler → { data, meta } or problem.
// The handler runs with the caller (principal + memberships) in async context, so every gRPC call it makes
// carries it in metadata and no handler passes it by hand.
// It returns a transport-neutral response that REST writes as HTTP and MCP wraps in a tool result.

export interface OperationRequest extends RawInput {
  requestId: string;
  /** The Authorization header value. */
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  /** The concrete path (with ids), part of the idempotency fingerprint. */
  concretePath: string;
  /** The resource being called; an OAuth token issued for another one is refused (no token passthrough). */
  audience: string;
  /** The client's address as express computes `req.ip`; failed authentications are limited per address. */
  clientAddress?: string;
  /** Set by a transport that already counted this HTTP request against the credential's budget. */
  rateLimit?: RateLimitDecision;
  /**
   * Bad fields the transport found in what only it carries (an MCP tool's arguments): refused as 400
   * after the scope check, like every other input, never before it.
   */
  inputErrors?: FieldError[];
  /**
   * Which of these media types the client takes, best first (REST: by its Accept header), false for
   * none; absent, the client takes any. Asked only for a download without a `format`.
   */
  accepts?: (mediaTypes: string[]) => string | false;
  /** Aborted when the client goes away before the answer (its connection closed). */
  signal?: AbortSignal;
  /**
   * Set by a transport that authenticated the caller itself (the web app's session cookie): used instead
   * of the Authorization header; every later step (rate limit, scope, idempotency, caller) is the same.
   */
  principal?: Principal;
}

export interface OperationResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /**
   * A download's body, instead of `body`: pieces to write as they come, each asked for once the last is
   * written. Pulling them makes the operation's further calls, with the request's caller.
   */
  stream?: AsyncIterable<string>;
}

export interface PipelineOptions {
  backends: Backends;
  verifier: CredentialVerifier;
  rateLimiter: RateLimiter;
  /**
   * Failed authentications per client address: once an address spends this budget, its requests are
   * refused with 429 before any credential is verified (guessing keys costs a verification each).
   */
  authFailureLimiter?: RateLimiter;
  idempotency: IdempotencyStore;
  /** The caller's memberships, for the Caller the handler's calls carry (the edge's membership cache). */
  memberships: Pick<MembershipCache, "forUser" | "grant">;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
  /** The `WWW-Authenticate` challenge for 401s (the MCP gateway adds its resource metadata URL). */
  challenge?: (error?: { error: string; scope?: string }) => string;
  /** Long polls (an operation's `waitInput`) waiting per credential in this process; WAITING_PER_CREDENTIAL unless said. */
  waitingPerCredential?: number;
}

export interface Pipeline {
  execute(op: Operation, request: OperationRequest): Promise<OperationResponse>;
  /** The long polls each credential holds in this process. */
  waitSlots: WaitSlots;
  authenticate(authorization: string | undefined, clientAddress?: string): Promise<Principal>;
  options: PipelineOptions;
}

const bearerOf = (authorization: string | undefined): string | undefined => {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return m?.[1];
};

/** The origin of the resource a request reached (`<origin>/api/v1`, `<origin>/mcp`). */
const originOf = (audience: string, fallback: string): string => {
  try {
    return new URL(audience).origin;
  } catch {
    return new URL(fallback).origin;
  }
};

const defaultChallenge = (error?: { error: string; scope?: string }) =>
  error
    ? `Bearer realm="earshot", error="${error.error}"${error.scope ? `, scope="${error.scope}"` : ""}`
    : `Bearer realm="earshot"`;

export const createPipeline = (options: PipelineOptions): Pipeline => {
  const challenge = options.challenge ?? defaultChallenge;
  const waitSlots = new WaitSlots(options.waitingPerCredential);

  // Verifications under way per address key on this replica. The limiter counts a failure only once the
  // verifier has answered, so without these a burst of concurrent guesses would all pass the gate before
  // the first failure was counted: an address may have at most its remaining budget unverified at once.
  const verifying = new Map<string, number>();

  const authenticate = async (authorization: string | undefined, clientAddress?: string): Promise<Principal> => {
    const token = bearerOf(authorization);
    if (!token) throw new DomainError("unauthorized", "Send a Bearer API key or access token in the Authorization header.");
    const failures = clientAddress ? options.authFailureLimiter : undefined;
    if (!failures || clientAddress === undefined) return options.verifier.verify(token);
    const addressKey = `address:${addressKeyOf(clientAddress)}`;
    const gate = await failures.peek(addressKey);
    const underway = verifying.get(addressKey) ?? 0;
    if (!gate.allowed || underway >= gate.remaining) {
      throw new DomainError("rate_limited", "Too many failed authentications from this address; retry later.", {
        details: { retryAfter: gate.resetSeconds },
      });
    }
    verifying.set(addressKey, underway + 1);
    try {
      return await options.verifier.verify(token);
    } catch (err) {
      if (isDomainError(err) && err.code === "unauthorized") await failures.take(addressKey);
      throw err;
    } finally {
      const left = (verifying.get(addressKey) ?? 1) - 1;
      if (left > 0) verifying.set(addressKey, left);
      else verifying.delete(addressKey);
    }
  };

  const problemResponse = (err: unknown, request: OperationRequest, headers: Record<string, string>): OperationResponse => {
    const problem = toProblem(err, request.requestId, request.concretePath);
    if (problem.status >= 500) options.logger.error({ err, path: request.concretePath }, "operation failed");
    const out = { ...headers };
    if (problem.code === "unauthorized") out["WWW-Authenticate"] = challenge(bearerOf(request.authorization) ? { error: "invalid_token" } : undefined);
    if (problem.code === "insufficient_scope") {
      out["WWW-Authenticate"] = challenge({ error: "insufficient_scope", scope: String(problem.scope ?? "") });
    }
    if (problem.code === "rate_limited" && typeof problem.retryAfter === "number") out["Retry-After"] = String(problem.retryAfter);
    return { status: problem.status, body: problem, headers: out };
  };

  const execute = async (op: Operation, request: OperationRequest): Promise<OperationResponse> => {
    const headers: Record<string, string> = op.sensitive ? { "Cache-Control": "no-store" } : {};
    let complete: ((r: StoredResponse) => Promise<void>) | undefined;
    let effectKey: string | undefined;
    try {
      const principal = request.principal ?? (await authenticate(request.authorization, request.clientAddress));
      if (principal.audience !== undefined && principal.audience !== request.audience) {
        throw new DomainError("unauthorized", "This access token was issued for another resource.");
      }
      const rate = request.rateLimit ?? (await options.rateLimiter.take(principal.credentialId));
      Object.assign(headers, rate.headers);
      if (!rate.allowed) {
        throw new DomainError("rate_limited", "Too many requests for this credential; retry after the window resets.", {
          details: { retryAfter: rate.resetSeconds },
        });
      }
      if (!principal.scopes.includes(op.scope)) {
        throw new DomainError("insufficient_scope", `This operation needs the ${op.scope} scope.`, { details: { scope: op.scope } });
      }
      if (request.inputErrors && request.inputErrors.length > 0) {
        const fields = [...new Set(request.inputErrors.map((e) => e.path))].join(", ");
        throw validationFailed(request.inputErrors, `The request has invalid fields: ${fields}.`);
      }
      // Key reuse is judged on the raw request before validation, so a different payload is always a 409,
      // and a rejected request replays its 400 like any other stored answer.
      if (takesIdempotencyKey(op) && request.idempotencyKey !== undefined) {
        validateIdempotencyKey(request.idempotencyKey);
        const begun = await options.idempotency.begin(
          principal.userId,
          request.idempotencyKey,
          fingerprintOf(op.method, request.concretePath, request.body, request.query),
        );
        if (begun.kind === "replay") {
          return { status: begun.response.status, body: begun.response.body, headers: { ...headers, ...begun.response.headers, "Idempotent-Replayed": "true" } };
        }
        complete = begun.complete;
        effectKey = begun.effectKey;
      }
      const input = validateInput(op, request);
      const format = op.download ? downloadFormat(op.download.formats, input.format, request.accepts) : undefined;
      const caller = callerFor(principal, await options.memberships.forUser(principal.userId));
      const release = op.waitInput
        ? waitSlots.take(principal.credentialId, Number((input as Record<string, unknown>)[op.waitInput] ?? 0), op.waitInput, request.signal)
        : undefined;
      // The services record a create's effect under this key, so a retry after a crash does not create twice.
      const result = await runWithCaller(caller, () =>
        runWithIdempotencyKey(effectKey, () =>
          op.handler(input as never, {
            backends: options.backends,
            principal,
            publicUrl: options.publicUrl,
            origin: originOf(request.audience, options.publicUrl),
            requestId: request.requestId,
            logger: options.logger.child({ requestId: request.requestId }),
            credentials: options.verifier,
            memberships: options.memberships,
            ...(format !== undefined ? { format } : {}),
            ...(request.signal ? { signal: request.signal } : {}),
          }),
        ),
      ).finally(release);
      if (isStreamResult(result)) {
        const { mediaType } = op.download?.formats[format ?? ""] ?? {};
        if (!mediaType) throw new Error(`${op.name} answered a stream without a download format.`);
        return {
          status: op.successStatus,
          body: undefined,
          headers: {
            ...headers,
            "Content-Type": mediaType.startsWith("text/") ? `${mediaType}; charset=utf-8` : mediaType,
            "Content-Disposition": `attachment; filename="${result.stream.filename}"`,
          },
          stream: withCaller(caller, result.stream.chunks),
        };
      }
      const meta: Record<string, unknown> = { requestId: request.requestId, apiVersion: API_VERSION };
      if (op.list) {
        meta.nextCursor = result.nextCursor ?? null;
        meta.limit = result.limit;
      }
      Object.assign(meta, result.meta);
      const response: OperationResponse = { status: op.successStatus, body: { data: result.data, meta }, headers };
      await complete?.({ status: response.status, body: response.body, headers: {} });
      return response;
    } catch (err) {
      const response = problemResponse(err, request, headers);
      if (complete) {
        await complete({ status: response.status, body: response.body, headers: {} }).catch((e: unknown) =>
          options.logger.error({ err: e }, "could not record an idempotent response"),
        );
      }
      return response;
    }
  };

  return { execute, authenticate, options, waitSlots };
};

/**
 * A download's format: the `format` input when given (the schema checked it), else the first format,
 * by the order the operation lists them, that the Accept header takes best; 406 when it takes none.
 */
const downloadFormat = (
  formats: Record<string, { mediaType: string }>,
  asked: unknown,
  accepts: OperationRequest["accepts"],
): string => {
  if (typeof asked === "string") return asked;
  const entries = Object.entries(formats);
  if (!accepts) return entries[0]![0];
  const best = accepts(entries.map(([, f]) => f.mediaType));
  const chosen = best === false ? undefined : entries.find(([, f]) => f.mediaType === best);
  if (!chosen) {
    const offered = entries.map(([, f]) => f.mediaType).join(", ");
    throw new HttpError("not_acceptable", `This download is offered as ${offered}; ask for one in Accept or pass format.`, [
      { path: "Accept", message: `must accept one of ${offered}` },
    ]);
  }
  return chosen[0];
};

/** The chunks, each pulled with the request's caller, so the calls that produce them carry it. */
const withCaller = (caller: ReturnType<typeof callerFor>, chunks: AsyncIterable<string>): AsyncIterable<string> => ({
  [Symbol.asyncIterator]: () => {
    const it = chunks[Symbol.asyncIterator]();
    return {
      next: () => runWithCaller(caller, () => it.next()),
      return: (value?: unknown) => (it.return ? runWithCaller(caller, () => it.return!(value)) : Promise.resolve({ done: true as const, value: undefined })),
    };
  },
});
