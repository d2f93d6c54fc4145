import { commonV1 } from "@earshot/proto";
import type { ProjectCaller, ProjectMembership } from "../core/project-caller";
import { DomainError, type FieldError, validationFailed } from "../errors";
import { requestContext } from "../logger";
import { ROLE_WORDS } from "./common-enums";
import { isEmailAddress } from "../text/email";

// Who a call acts for travels like the request id: the edge resolves one earshot.common.v1.Caller per
// request and runs the handler inside `runWithCaller`; the gRPC client sends it, protobuf-encoded, in the
// metadata of every call; the server validates it once into `ctx.caller`. No request message carries it.

export const CALLER_METADATA_KEY = "earshot-caller-bin";

/** A Caller the server accepted: identity and allowances present, every membership naming a project, a role and its workspace. */
export type CallerContext = commonV1.Caller & { allowances: commonV1.Allowances };

/** Runs `fn` with the calls it makes carrying `caller` (and the request id and idempotency key around it); with none, just runs it. */
export const runWithCaller = <T>(caller: commonV1.Caller | undefined, fn: () => T): T =>
  caller ? requestContext.run({ ...requestContext.getStore(), caller }, fn) : fn();

export const currentCaller = (): commonV1.Caller | undefined => requestContext.getStore()?.caller as commonV1.Caller | undefined;

export const encodeCaller = (caller: commonV1.Caller): Buffer => Buffer.from(commonV1.Caller.encode(caller).finish());

const ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Far above any real person's projects; the bound keeps a forged caller from costing a check per entry. */
export const MAX_CALLER_MEMBERSHIPS = 2_000;
const ROLES = new Set<number>([commonV1.Role.ROLE_OWNER, commonV1.Role.ROLE_EDITOR, commonV1.Role.ROLE_VIEWER]);

const refused = (errors: FieldError[]) => validationFailed(errors, "The caller in the call metadata is not valid.");

/** The fields a decoded Caller lacks or gets wrong, as paths under `caller`. */
export const callerErrors = (caller: commonV1.Caller): FieldError[] => {
  const errors: FieldError[] = [];
  if (!ID.test(caller.userId)) errors.push({ path: "caller.userId", message: "is required (an id)" });
  if (!ID.test(caller.workspaceId)) errors.push({ path: "caller.workspaceId", message: "is required (an id)" });
  if (!isEmailAddress(caller.email)) errors.push({ path: "caller.email", message: "is required (an email address)" });
  if (!caller.allowances) errors.push({ path: "caller.allowances", message: "is required" });
  if (caller.memberships.length > MAX_CALLER_MEMBERSHIPS) {
    errors.push({ path: "caller.memberships", message: `must list at most ${MAX_CALLER_MEMBERSHIPS} projects` });
    return errors;
  }
  caller.memberships.forEach((m, i) => {
    if (!ID.test(m.projectId)) errors.push({ path: `caller.memberships.${i}.projectId`, message: "is required (an id)" });
    if (!ROLES.has(m.role)) errors.push({ path: `caller.memberships.${i}.role`, message: "must be owner, editor or viewer" });
    if (!ID.test(m.workspaceId)) errors.push({ path: `caller.memberships.${i}.workspaceId`, message: "is required (an id)" });
  });
  return errors;
};

/**
 * Decodes and checks the caller a call's metadata carries: undefined when it carries none, a
 * validation_failed naming `caller` when it carries one that does not decode or lacks what every caller has.
 */
export const readCaller = (values: Array<string | Buffer>): CallerContext | undefined => {
  if (values.length === 0) return undefined;
  const raw = values[0];
  if (values.length > 1 || !Buffer.isBuffer(raw)) throw refused([{ path: "caller", message: "must be one binary earshot.common.v1.Caller" }]);
  let caller: commonV1.Caller;
  try {
    caller = commonV1.Caller.decode(raw);
  } catch {
    throw refused([{ path: "caller", message: "is not an encoded earshot.common.v1.Caller" }]);
  }
  const errors = callerErrors(caller);
  if (errors.length > 0) throw refused(errors);
  return caller as CallerContext;
};

/** The caller of an RPC that acts for a person; a call without one is unauthenticated. */
export const requireCaller = (ctx: { caller: CallerContext | undefined }): CallerContext => {
  if (!ctx.caller) throw new DomainError("unauthorized", "This call acts for a person and carries no caller.");
  return ctx.caller;
};

/** The caller's role in a project, from the memberships the edge resolved (a cached view, not the owner's record). */
export const roleIn = (caller: commonV1.Caller, projectId: string): commonV1.Role | undefined => membershipIn(caller, projectId)?.role;

/** The caller's membership of a project (role and the project's workspace), from the edge's cached view. */
export const membershipIn = (caller: commonV1.Caller, projectId: string): commonV1.Membership | undefined =>
  caller.memberships.find((m) => m.projectId === projectId);

/** The caller of an RPC about a project's resources, with their memberships as the domain reads them. */
export const requireProjectCaller = (ctx: { caller: CallerContext | undefined }): ProjectCaller => {
  const c = requireCaller(ctx);
  const byProject = new Map<string, ProjectMembership>();
  for (const m of c.memberships) {
    const role = ROLE_WORDS.word(m.role);
    if (role) byProject.set(m.projectId, { role, workspaceId: m.workspaceId });
  }
  return { userId: c.userId, workspaceId: c.workspaceId, allowances: { ...c.allowances }, membership: (projectId) => byProject.get(projectId) };
};
