import type { IncomingMessage, ServerResponse } from "node:http";

// Small HTTP helpers for the simulators: they answer like the platforms (plain JSON bodies, the
// platforms' own error shapes), so no framework is needed.

export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
};

export const sendText = (res: ServerResponse, status: number, body: string, contentType = "text/plain; charset=utf-8", headers: Record<string, string> = {}): void => {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
};

export const redirect = (res: ServerResponse, location: string): void => {
  res.writeHead(302, { location, "content-length": 0 });
  res.end();
};

export const readBody = (req: IncomingMessage, limit = 1 << 20): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error("body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Basic credentials of an Authorization header, or undefined. */
export const basicCredentials = (header: string | undefined): { user: string; password: string } | undefined => {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const i = decoded.indexOf(":");
  return i < 0 ? undefined : { user: decodeURIComponent(decoded.slice(0, i)), password: decodeURIComponent(decoded.slice(i + 1)) };
};

export const bearerToken = (header: string | undefined): string | undefined => /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1];

const decoded = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** A request's path and query, decoded, as faults restricted to one item match them. */
export const requestTarget = (path: string, url: URL): string => `${decoded(path)}?${[...url.searchParams].map(([k, v]) => `${k}=${v}`).join("&")}`;
