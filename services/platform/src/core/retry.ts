import { DomainError } from "../errors";
import { isVersionConflict } from "../store/port";

export interface VersionRetryOptions {
  /** Runs in all, the first included; default 5. */
  attempts?: number;
  /** The `conflict` message once every attempt lost. */
  conflictMessage?: string;
}

const DEFAULT_ATTEMPTS = 5;
const DEFAULT_CONFLICT_MESSAGE = "The data changed while this request ran; try again.";

/**
 * Runs a read-modify-write whose write is a versioned replace again when another writer changed what it
 * read in between. Such races are ordinary (a rename meets a deactivation, a key's `lastUsedAt` meets its
 * revocation), so only a storm of them ends as `conflict`. The verb learns which attempt it is, so it can
 * tell a target that was never there from one a concurrent request removed.
 */
export const withVersionRetry = async <T>(run: (attempt: number) => Promise<T>, options: VersionRetryOptions = {}): Promise<T> => {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  for (let i = 1; ; i++) {
    try {
      return await run(i);
    } catch (err) {
      if (!isVersionConflict(err)) throw err;
      if (i >= attempts) throw new DomainError("conflict", options.conflictMessage ?? DEFAULT_CONFLICT_MESSAGE, { cause: err });
    }
  }
};
