import { DomainError } from "@earshot/platform";
import type { NextFunction, Request, Response } from "express";
import { sendProblem, toProblem } from "../http/problem";

// DNS rebinding: a web page on evil.example whose name the attacker re-points at 127.0.0.1 reaches a
// server bound to loopback as "same origin", so its requests may carry no Origin header at all. What
// still names the attacker is the Host header. A server bound to loopback therefore answers /mcp only
// to the names it is known by (the loopback names with its port, and the public URL's host); bound to
// another interface it cannot know every name it is reached by, and checks Origin only.

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Whether a listening address is the loopback interface (`127.0.0.1`, `::1`, `localhost`). */
export const isLoopbackAddress = (host: string): boolean => host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);

/** The Host values a loopback-bound server answers to: its loopback names with the port, and the public URL's host. */
export const loopbackHostNames = (port: number, publicUrl?: string): string[] => [
  ...LOOPBACK_NAMES.map((name) => `${name}:${port}`),
  ...(publicUrl ? [new URL(publicUrl).host] : []),
];

/** Whether a Host header value is one of `names`; with no names, every value is. */
export const knownHost = (names: readonly string[] | undefined) => {
  const known = new Set((names ?? []).map((n) => n.toLowerCase()));
  return (host: string | undefined): boolean => known.size === 0 || known.has((host ?? "").toLowerCase());
};

/** Refuses (403) a request whose Host is not one of `names`; with no names, everything passes. */
export const refuseForeignHost = (names: readonly string[] | undefined) => {
  const isKnown = knownHost(names);
  return (req: Request, res: Response, next: NextFunction): void => {
    const host = (req.headers.host ?? "").toLowerCase();
    if (isKnown(host)) return next();
    const shown = host ? host.slice(0, 100) : "(none)";
    sendProblem(
      res,
      toProblem(
        new DomainError("forbidden", `This server does not answer to the host name ${shown}: it listens on loopback only.`, { errors: [{ path: "Host", message: "is not a name of this server" }] }),
        req.requestId,
        "/mcp",
      ),
    );
  };
};
