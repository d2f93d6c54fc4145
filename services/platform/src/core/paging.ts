import { validationFailed } from "../errors";
import { InvalidCursorError } from "../store/checks";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * The page size a list verb asked for, checked; absent means the default. 0 is refused like any other
 * size outside 1..max: where a transport cannot tell an unset number from 0 (proto3), its handler maps 0
 * to absent before calling the verb.
 */
export const pageLimit = (limit: number | undefined, max = MAX_PAGE_SIZE, fallback = DEFAULT_PAGE_SIZE): number => {
  const size = limit ?? fallback;
  if (!Number.isInteger(size) || size < 1 || size > max) throw validationFailed([{ path: "limit", message: `must be an integer from 1 to ${max}` }]);
  return size;
};

/** Runs a page read, answering a cursor the store cannot decode as a field error instead of a fault. */
export const withCursorErrors = async <T>(read: () => Promise<T>): Promise<T> => {
  try {
    return await read();
  } catch (err) {
    if (err instanceof InvalidCursorError) throw validationFailed([{ path: "cursor", message: "is not a cursor this list returned" }]);
    throw err;
  }
};
