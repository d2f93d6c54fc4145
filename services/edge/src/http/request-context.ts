import { newId, runWithRequestId } from "@earshot/platform";
import type { IncomingMessage } from "node:http";
import type { NextFunction, Request, Response } from "express";

export const API_VERSION = "2026-08-24";

declare module "express-serve-static-core" {
  interface Request {
    requestId: string;
  }
}

const CLIENT_ID_RE = /^[\w.:-]{8,128}$/;

/** The request's id: the client's `X-Request-Id` when it is sane, else a new `req_…`. */
export const requestIdOf = (req: IncomingMessage): string => {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && CLIENT_ID_RE.test(given) ? given : newId("req");
};

/**
 * Gives every request an id, echoes it, stamps the API version, and runs the rest of the request in that
 * id's logging context.
 */
export const requestContext = (req: Request, res: Response, next: NextFunction): void => {
  req.requestId = requestIdOf(req);
  res.setHeader("X-Request-Id", req.requestId);
  res.setHeader("Earshot-Version", API_VERSION);
  runWithRequestId(req.requestId, next);
};
