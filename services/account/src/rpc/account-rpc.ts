import type { AsyncService } from "@earshot/platform";
import type { accountV1 } from "@earshot/proto";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "../domain/api-keys";
import type { AccountDeps } from "../domain/deps";
import { allowancesOf } from "../domain/plans";
import { authenticate, createUser, deactivateUser, getUser, reactivateUser, updateUser } from "../domain/users";
import type { ApiKeyDoc, UserDoc, WorkspaceDoc } from "../store";

// gRPC adapter: decode (proto3 zero values become "not given"), call a domain verb, encode. No rules here.

const given = (s: string | undefined): string | undefined => (s ? s : undefined);

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
  updateUser: async (req) => ({ user: toUserMessage(await updateUser(deps, req.userId, { name: req.name })) }),
  deactivateUser: async (req) => ({ user: toUserMessage(await deactivateUser(deps, req.userId, req.confirmation)) }),
  reactivateUser: async (req) => ({ user: toUserMessage(await reactivateUser(deps, req.email)) }),
  createApiKey: async (req, ctx) => {
    const { key, plaintext } = await createApiKey(
      deps,
      {
        userId: req.userId,
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
  listApiKeys: async (req) => {
    const page = await listApiKeys(deps, { userId: req.userId, limit: req.limit === 0 ? undefined : req.limit, cursor: given(req.cursor) });
    return { apiKeys: page.items.map(toApiKeyMessage), nextCursor: page.nextCursor ?? "" };
  },
  revokeApiKey: async (req) => ({ apiKey: toApiKeyMessage(await revokeApiKey(deps, req.userId, req.keyId)) }),
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
