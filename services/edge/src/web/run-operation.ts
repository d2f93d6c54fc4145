import { ALL_SCOPES } from "@earshot/account/scopes";
import { DomainError } from "@earshot/platform";
import type { Request } from "express";
import type { Backends } from "../backends";
import type { Operation } from "../catalog/operation";
import { activeAccountOf } from "../oauth/token-verifier";
import type { Pipeline } from "../pipeline/execute";
import type { Principal } from "../pipeline/principal";
import { splitInput } from "../pipeline/validate";
import type { WebSession } from "../sessions/session-store";

// A page's action is a catalog operation run through the same pipeline as REST and MCP: rate limit,
// scope, validation, idempotency, the caller's memberships, the owning service's role checks and audit.
// The session is a principal like an OAuth token of the user holding every scope but `mcp`: what the
// person may do in a project is their role's, decided by the service that owns the project. A signed link
// (one-click unsubscribe) acts for its person too, with only the scopes the link is for.

export interface Problem {
  status: number;
  code?: string;
  title?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

export type OperationResult<T = unknown> = { ok: true; data: T; meta: Record<string, unknown> } | { ok: false; problem: Problem };

const WEB_SCOPES = ALL_SCOPES.filter((s) => s !== "mcp");

/**
 * Whom a page acts for without a session: a signed link's person (one-click unsubscribe), with only the
 * scopes the link is for, rate limited under the link's own credential id.
 */
export interface LinkActor {
  userId: string;
  credentialId: string;
  scopes: string[];
}

export interface OperationRunner {
  run<T = unknown>(name: string, input: Record<string, unknown>, req: Request, session: WebSession, idempotencyKey?: string): Promise<OperationResult<T>>;
  runFor<T = unknown>(name: string, input: Record<string, unknown>, req: Request, actor: LinkActor, idempotencyKey?: string): Promise<OperationResult<T>>;
}

export const operationRunner = (o: { operations: readonly Operation[]; pipeline: Pipeline; backends: Backends; origin: (req: Request) => string }): OperationRunner => {
  const byName = new Map(o.operations.map((op) => [op.name, op]));
  const principalOf = async (actor: LinkActor): Promise<Principal> => {
    const found = await activeAccountOf(o.backends, actor.userId);
    if (!found?.user) throw new DomainError("unauthorized", "This account is no longer active.");
    const a = found.workspace?.allowances;
    return {
      userId: found.user.id,
      workspaceId: found.user.workspaceId,
      email: found.user.email,
      scopes: actor.scopes,
      credentialId: actor.credentialId,
      credentialType: "oauth",
      allowances: {
        projects: a?.projects ?? 0,
        keywords: a?.keywords ?? 0,
        seats: a?.seats ?? 0,
        webhookDeliveriesPerDay: a?.webhookDeliveriesPerDay ?? 0,
        linkedinSyncsPerDay: a?.linkedinSyncsPerDay ?? 0,
      },
    };
  };
  // A page runs several operations; the account is read once per request, not once per operation.
  const principals = new WeakMap<Request, Promise<Principal>>();
  const principalFor = (req: Request, actor: LinkActor): Promise<Principal> => {
    let p = principals.get(req);
    if (!p) principals.set(req, (p = principalOf(actor)));
    return p;
  };
  const runFor = async <T>(name: string, input: Record<string, unknown>, req: Request, actor: LinkActor, idempotencyKey?: string): Promise<OperationResult<T>> => {
    const op = byName.get(name);
    if (!op) throw new Error(`No operation ${name}.`);
    const raw = splitInput(op, input);
    const concretePath = `/api/v1${op.path.replace(/:(\w+)/g, (_m, k: string) => encodeURIComponent(String(raw.path[k] ?? "")))}`;
    const response = await o.pipeline.execute(op, {
      ...raw,
      requestId: req.requestId,
      authorization: undefined,
      principal: await principalFor(req, actor),
      idempotencyKey,
      concretePath,
      audience: `${o.origin(req)}/api/v1`,
      ...(req.ip !== undefined ? { clientAddress: req.ip } : {}),
    });
    const body = response.body as { data?: T; meta?: Record<string, unknown> } & Problem;
    if (response.status >= 400) return { ok: false, problem: { ...body, status: response.status } };
    return { ok: true, data: body.data as T, meta: body.meta ?? {} };
  };
  return {
    // Rate limited per session, as an API key or token family is per credential.
    run: (name, input, req, session, idempotencyKey) => runFor(name, input, req, { userId: session.userId, credentialId: `web_${session._id.slice(0, 22)}`, scopes: WEB_SCOPES }, idempotencyKey),
    runFor,
  };
};
