import type { RpcContext } from "@earshot/platform";
import { validationFailed } from "@earshot/platform";
import type { accountV1 } from "@earshot/proto";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "../domain/api-keys";
import { allowancesOf } from "../domain/plans";
import {
  type AccountDeps,
  authenticate,
  createUser,
  deactivateUser,
  getUser,
  reactivateUser,
  updateUserName,
} from "../domain/users";
import type { ApiKeyDoc, UserDoc, WorkspaceDoc } from "../store";

// gRPC adapter: decode, call a domain verb, encode. No rules live here.

export const toUserMessage = (u: UserDoc): accountV1.User => ({
  id: u._id,
  email: u.email,
  name: u.name,
  workspaceId: u.workspaceId,
  status: u.status,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
  deactivatedAt: u.deactivatedAt,
});

export const toWorkspaceMessage = (w: WorkspaceDoc | null): accountV1.Workspace | undefined =>
  w ? { id: w._id, ownerId: w.ownerId, plan: w.plan, allowances: allowancesOf(w.plan), createdAt: w.createdAt } : undefined;

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

export const accountRpc = (deps: AccountDeps) => ({
  createUser: async (req: accountV1.CreateUserRequest, _ctx: RpcContext): Promise<accountV1.CreateUserResponse> => {
    const { user, workspace } = await createUser(deps, { email: req.email, name: req.name, password: req.password });
    return { user: toUserMessage(user), workspace: toWorkspaceMessage(workspace) };
  },
  getUser: async (req: accountV1.GetUserRequest, _ctx: RpcContext): Promise<accountV1.GetUserResponse> => {
    if (!req.id && !req.email) throw validationFailed([{ path: "id", message: "id or email is required" }]);
    const { user, workspace } = await getUser(deps, req.id ? { id: req.id } : { email: req.email ?? "" });
    return { user: toUserMessage(user), workspace: toWorkspaceMessage(workspace) };
  },
  authenticate: async (req: accountV1.AuthenticateRequest, _ctx: RpcContext): Promise<accountV1.AuthenticateResponse> => ({
    user: toUserMessage(await authenticate(deps, req.email, req.password)),
  }),
  updateUser: async (req: accountV1.UpdateUserRequest, _ctx: RpcContext): Promise<accountV1.UpdateUserResponse> => ({
    user: toUserMessage(await updateUserName(deps, req.userId, req.name)),
  }),
  deactivateUser: async (req: accountV1.DeactivateUserRequest, _ctx: RpcContext): Promise<accountV1.DeactivateUserResponse> => ({
    user: toUserMessage(await deactivateUser(deps, req.userId, req.confirmation)),
  }),
  reactivateUser: async (req: accountV1.ReactivateUserRequest, _ctx: RpcContext): Promise<accountV1.ReactivateUserResponse> => ({
    user: toUserMessage(await reactivateUser(deps, req.email)),
  }),
  createApiKey: async (req: accountV1.CreateApiKeyRequest, _ctx: RpcContext): Promise<accountV1.CreateApiKeyResponse> => {
    const { key, plaintext } = await createApiKey(deps, {
      userId: req.userId,
      name: req.name,
      scopes: req.scopes,
      ...(req.expiresAt ? { expiresAt: req.expiresAt } : {}),
      granterScopes: req.granterScopes,
      operator: req.operator,
    });
    return { apiKey: toApiKeyMessage(key), plaintext };
  },
  listApiKeys: async (req: accountV1.ListApiKeysRequest, _ctx: RpcContext): Promise<accountV1.ListApiKeysResponse> => {
    const page = await listApiKeys(deps, req.userId, req.limit, req.cursor);
    return { apiKeys: page.items.map(toApiKeyMessage), nextCursor: page.nextCursor ?? "" };
  },
  revokeApiKey: async (req: accountV1.RevokeApiKeyRequest, _ctx: RpcContext): Promise<accountV1.RevokeApiKeyResponse> => ({
    apiKey: toApiKeyMessage(await revokeApiKey(deps, req.userId, req.keyId)),
  }),
  verifyApiKey: async (req: accountV1.VerifyApiKeyRequest, _ctx: RpcContext): Promise<accountV1.VerifyApiKeyResponse> => {
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
