import { type Clock, DomainError, isVersionConflict, type Outbox } from "@earshot/platform";
import type { AccountCollections, UserDoc, WorkspaceDoc } from "../store";

export interface AccountDeps {
  collections: AccountCollections;
  outbox: Outbox;
  clock: Clock;
}

const VERSION_ATTEMPTS = 5;

/**
 * Runs a read-modify-write whose write is a versioned replace, reading again when another writer got
 * there first. Such races are ordinary here: a key's `lastUsedAt` is written by verification while it may
 * be revoked, and a rename may meet a deactivation. Only a pathological storm ends as `conflict`.
 */
export const withVersionRetry = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isVersionConflict(err)) throw err;
      if (i >= VERSION_ATTEMPTS) throw new DomainError("conflict", "The record kept changing while it was being updated; try again.", { cause: err });
    }
  }
};

/** The `_v` a document has after a versioned replace of it. */
export const nextVersion = (doc: { _v?: number }): number => (doc._v ?? 1) + 1;

/** The workspace a user owns. Both are written in one commit, so a missing one is corrupt data, not a user error. */
export const workspaceOf = async (deps: AccountDeps, user: UserDoc): Promise<WorkspaceDoc> => {
  const workspace = await deps.collections.workspaces.findById(user.workspaceId);
  // A plain Error: the transport logs it and answers "Internal error." without the ids.
  if (!workspace) throw new Error(`Workspace ${user.workspaceId} of user ${user._id} is missing.`);
  return workspace;
};
