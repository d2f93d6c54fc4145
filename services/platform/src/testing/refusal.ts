import { DomainError } from "../errors";

/** The DomainError a call is refused with; fails the test when the call succeeds or throws anything else. */
export const refusalOf = async (promise: Promise<unknown>): Promise<DomainError> => {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
};
