import type { Clock, Outbox } from "@earshot/platform/core";
import type { AccountCollections, UserDoc, WorkspaceDoc } from "../store";
import type { PasswordHasher } from "./password";

export interface AccountDeps {
  collections: AccountCollections;
  outbox: Outbox;
  clock: Clock;
  passwords: PasswordHasher;
  /** Waits `ms` before going on: how a sign-in attempt is held (a timer in the service, recorded in tests). */
  pause(ms: number): Promise<void>;
}

/** The `_v` a document has after a versioned replace of it. */
export const nextVersion = (doc: { _v?: number }): number => (doc._v ?? 1) + 1;

/** The workspace a user owns. Both are written in one commit, so a missing one is corrupt data, not a user error. */
export const workspaceOf = async (deps: AccountDeps, user: UserDoc): Promise<WorkspaceDoc> => {
  const workspace = await deps.collections.workspaces.findById(user.workspaceId);
  // A plain Error: the transport logs it and answers "Internal error." without the ids.
  if (!workspace) throw new Error(`Workspace ${user.workspaceId} of user ${user._id} is missing.`);
  return workspace;
};
