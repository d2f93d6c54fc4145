import { type AsyncService, DomainError, enumValueOf, requireCaller, type RpcContext, validationFailed } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { USER_STATUS_WORDS } from "../fields";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "../domain/api-keys";
import type { AccountDeps } from "../domain/deps";
import { allowancesOf } from "../domain/plans";
import { authenticate, createUser, deactivateUser, getUser, reactivateUser, updateUser } from "../domain/users";
import type { ApiKeyDoc, UserDoc, WorkspaceDoc } from "../store";

// gRPC adapter: decode (proto3 zero values become "not given"), call a domain verb, encode. No rules here.
// Calls acting for a person take the user from the call's caller (ctx.caller); operator and sign-in calls
// name the user in the request (see the README's RPC table).

const given = (s: string | undefined): string | undefined => (s ? s : undefined);

export const toUserMessage = (u: UserDoc): accountV1.User => ({
  id: u._id,
  email: u.email,
  name: u.name,
  workspaceId: u.workspaceId,
  status: enumValueOf(USER_STATUS_WORDS, u.status),
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
  deactivatedAt: u.deactivatedAt,
});

export const toWorkspaceMessage = (w: WorkspaceDoc): accountV1.Workspace => ({
  id: w._id,
  ownerId: w.ownerId,
  plan: w.plan,
  allowances: allowancesOf(w.plan),
  createdAt: w.createdAt,
});

/** Everything about a key except its hash: that stays in the service. */
export const toApiKeyMessage = (k: ApiKeyDoc): accountV1.ApiKey => ({
  id: k._id,
  userId: k.userId,
  workspaceId: k.workspaceId,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt,
  expiresAt: k.expiresAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
});

/** An operator-only call without the operator credential (EARSHOT_OPERATOR_KEY) is refused before anything else. */
const requireOperator = (ctx: RpcContext): void => {
  if (!ctx.operator) throw new DomainError("forbidden", "This call is the operator's and carries no valid operator signature.");
};

/**
 * Whose key CreateApiKey mints: an operator call names the user; any other call acts for its caller and
 * must not name someone else.
 */
const keyOwnerOf = (req: accountV1.CreateApiKeyRequest, ctx: RpcContext): string => {
  if (req.operator) {
    requireOperator(ctx);
    return req.userId;
  }
  const caller = requireCaller(ctx);
  if (req.userId && req.userId !== caller.userId) {
    throw validationFailed([{ path: "userId", message: "must be empty: the key is the caller's unless the call is an operator's" }]);
  }
  return caller.userId;
};

export const accountRpc = (deps: AccountDeps): AsyncService<accountV1.AccountServiceServer> => ({
  createUser: async (req) => {
    const { user, workspace } = await createUser(deps, { email: req.email, name: req.name, password: req.password });
    return { user: toUserMessage(user), workspace: toWorkspaceMessage(workspace) };
  },
  getUser: async (req) => {
    const { user, workspace } = await getUser(deps, { id: given(req.id), email: given(req.email) });
    return { user: toUserMessage(user), workspace: toWorkspaceMessage(workspace) };
  },
  authenticate: async (req) => ({ user: toUserMessage(await authenticate(deps, req.email, req.password, given(req.clientAddress))) }),
  updateUser: async (req, ctx) => ({ user: toUserMessage(await updateUser(deps, requireCaller(ctx).userId, { name: req.name })) }),
  deactivateUser: async (req, ctx) => ({ user: toUserMessage(await deactivateUser(deps, requireCaller(ctx).userId, req.confirmation)) }),
  reactivateUser: async (req, ctx) => {
    requireOperator(ctx);
    return { user: toUserMessage(await reactivateUser(deps, req.email)) };
  },
  createApiKey: async (req, ctx) => {
    const { key, plaintext } = await createApiKey(
      deps,
      {
        userId: keyOwnerOf(req, ctx),
        name: given(req.name),
        scopes: req.scopes,
        expiresAt: req.expiresAt,
        granterScopes: req.granterScopes,
        operator: req.operator,
      },
      ctx.idempotencyKey,
    );
    return { apiKey: toApiKeyMessage(key), plaintext };
  },
  listApiKeys: async (req, ctx) => {
    const page = await listApiKeys(deps, { userId: requireCaller(ctx).userId, limit: req.limit === 0 ? undefined : req.limit, cursor: given(req.cursor) });
    return { apiKeys: page.items.map(toApiKeyMessage), nextCursor: page.nextCursor ?? "" };
  },
  revokeApiKey: async (req, ctx) => ({ apiKey: toApiKeyMessage(await revokeApiKey(deps, requireCaller(ctx).userId, req.keyId)) }),
  verifyApiKey: async (req) => {
    const { key, user, allowances } = await verifyApiKey(deps, req.plaintext);
    return {
      principal: {
        userId: user._id,
        workspaceId: user.workspaceId,
        scopes: key.scopes,
        credentialId: key._id,
        allowances,
        email: user.email,
      },
    };
  },
});
