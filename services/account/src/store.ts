import type { Collection, Doc, DocumentStore } from "@earshot/platform";

// The account service's collections and indexes. Database `earshot_account` on MongoDB, files under
// `<dataDir>/account/` on the embedded store; the outbox collection beside them belongs to the Outbox.

export interface UserDoc extends Doc {
  email: string;
  name: string;
  passwordHash: string;
  workspaceId: string;
  status: "active" | "deactivated";
  createdAt: Date;
  updatedAt: Date;
  deactivatedAt?: Date;
}

export interface WorkspaceDoc extends Doc {
  ownerId: string;
  plan: string;
  createdAt: Date;
}

export interface ApiKeyDoc extends Doc {
  userId: string;
  workspaceId: string;
  name: string;
  /** SHA-256 (hex) of the plaintext; the plaintext itself is never stored. */
  hash: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  expiresAt?: Date;
  lastUsedAt?: Date;
  revokedAt?: Date;
}

/** Recent failed sign-ins of one account (`account:<email>`) or one client address (`address:<ip>`). */
export interface SignInFailureDoc extends Doc {
  failures: number;
  lastFailureAt: Date;
}

export interface AccountCollections {
  users: Collection<UserDoc>;
  workspaces: Collection<WorkspaceDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  signInFailures: Collection<SignInFailureDoc>;
}

export const USERS = "users";
export const WORKSPACES = "workspaces";
export const API_KEYS = "api_keys";
export const SIGN_IN_FAILURES = "sign_in_failures";

export const openAccountCollections = async (store: DocumentStore): Promise<AccountCollections> => {
  const users = store.collection<UserDoc>(USERS);
  const workspaces = store.collection<WorkspaceDoc>(WORKSPACES);
  const apiKeys = store.collection<ApiKeyDoc>(API_KEYS);
  const signInFailures = store.collection<SignInFailureDoc>(SIGN_IN_FAILURES);
  await users.ensureIndex({ fields: { email: 1 }, unique: true });
  await workspaces.ensureIndex({ fields: { ownerId: 1 }, unique: true });
  await apiKeys.ensureIndex({ fields: { hash: 1 }, unique: true });
  // A user's keys, newest first by id (ListApiKeys pages on _id within one user).
  await apiKeys.ensureIndex({ fields: { userId: 1, _id: 1 } });
  // Forgotten failures are deleted by age on the next failure (by the service's clock, not a TTL index).
  await signInFailures.ensureIndex({ fields: { lastFailureAt: 1 } });
  return { users, workspaces, apiKeys, signInFailures };
};
