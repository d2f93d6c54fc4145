import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import helmet from "helmet";

// The headers every answer of the public app carries whatever it is: helmet's security headers (its CSP
// left out) and the CSP of a JSON answer, which needs no sources at all (pages and the reference set their
// own). They do not depend on the request, so they are worked out once at start, from helmet itself, and
// written by both the express chain and the API dispatch from this one list.

export type HeaderList = ReadonlyArray<readonly [string, string]>;

export const JSON_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Runs helmet once against a response that only records what it is told to set. */
const helmetHeaders = (): Array<[string, string]> => {
  const set = new Map<string, [string, string]>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void set.set(name.toLowerCase(), [name, String(value)]),
    removeHeader: (name: string) => void set.delete(name.toLowerCase()),
  };
  let called = false;
  helmet({ contentSecurityPolicy: false })({} as IncomingMessage, recorder as unknown as ServerResponse, () => {
    called = true;
  });
  // helmet answers synchronously today; if a version ever did not, the list would be silently short.
  if (!called) throw new Error("helmet did not finish synchronously; the frame headers cannot be worked out once.");
  return [...set.values()];
};

export const frameHeaders = (): HeaderList => [...helmetHeaders(), ["Content-Security-Policy", JSON_CSP]];

/** The express middleware writing the frame headers (the API dispatch writes the same list itself). */
export const frameHeadersMiddleware =
  (headers: HeaderList) =>
  (_req: Request, res: Response, next: NextFunction): void => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
