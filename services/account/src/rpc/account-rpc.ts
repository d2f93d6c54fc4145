import type { RpcContext } from "@earshot/platform";
import { validationFailed } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { type AccountDeps, createUser, getUser } from "../domain/users";
import type { UserDoc } from "../store";

// gRPC adapter: decode, call a domain verb, encode. No rules live here.

export const toUserMessage = (u: UserDoc): accountV1.User => ({
  id: u._id,
  email: u.email,
  name: u.name,
  workspaceId: u.workspaceId,
  status: u.status,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
});

export const accountRpc = (deps: AccountDeps) => ({
  createUser: async (req: accountV1.CreateUserRequest, _ctx: RpcContext): Promise<accountV1.CreateUserResponse> => ({
    user: toUserMessage(await createUser(deps, { email: req.email, name: req.name, password: req.password })),
  }),
  getUser: async (req: accountV1.GetUserRequest, _ctx: RpcContext): Promise<accountV1.GetUserResponse> => {
    if (!req.id && !req.email) throw validationFailed([{ path: "id", message: "id or email is required" }]);
    return { user: toUserMessage(await getUser(deps, req.id ? { id: req.id } : { email: req.email ?? "" })) };
  },
});
