import type { Collection, Doc, DocumentStore } from "@earshot/platform";

// The account service's collections and indexes.

export interface UserDoc extends Doc {
  email: string;
  name: string;
  passwordHash: string;
  workspaceId: string;
  status: "active" | "deactivated";
  createdAt: Date;
  updatedAt: Date;
}

export interface WorkspaceDoc extends Doc {
  ownerId: string;
  plan: string;
  createdAt: Date;
}

export interface AccountCollections {
  users: Collection<UserDoc>;
  workspaces: Collection<WorkspaceDoc>;
}

export const USERS = "users";
export const WORKSPACES = "workspaces";

export const openAccountCollections = async (store: DocumentStore): Promise<AccountCollections> => {
  const users = store.collection<UserDoc>(USERS);
  const workspaces = store.collection<WorkspaceDoc>(WORKSPACES);
  await users.ensureIndex({ fields: { email: 1 }, unique: true });
  await workspaces.ensureIndex({ fields: { ownerId: 1 }, unique: true });
  return { users, workspaces };
};
