import type { Request } from "express";

/**
 * A cookie of the request, decoded; undefined when it is absent or cannot be decoded (`%` alone, a broken
 * escape): a cookie a browser mangled is no different from none, never a server error.
 */
export const readCookie = (req: Request, name: string): string | undefined => {
  for (const part of (req.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      return undefined;
    }
  }
  return undefined;
};
