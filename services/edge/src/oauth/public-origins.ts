// Which origin Earshot is, per request, and which browser origins may call it.
//
// With a public URL set, that is the one origin, always. Without one, Earshot is reached on the loopback
// interface by more than one name (localhost, 127.0.0.1, [::1]) and clients compare what the metadata
// says with the URL they used: an MCP client that connected to 127.0.0.1 refuses metadata naming
// localhost. So the origin is taken from the Host header, but only when it names a loopback host with
// the listening port; any other Host falls back to the default, so a forged Host cannot choose it.

export interface PublicOrigins {
  /** The origin this request reached, e.g. `http://127.0.0.1:8080` (no trailing slash). */
  of(req: { headers: { host?: string | undefined } }): string;
  /** Every origin Earshot answers as: tokens issued at any of them are its own. */
  readonly all: readonly string[];
  /** Whether a browser page at `origin` (the Origin header) may send requests with side effects. */
  allowsBrowserOrigin(origin: string): boolean;
}

export interface PublicOriginsOptions {
  /** EARSHOT_PUBLIC_URL, when set. */
  publicUrl?: string | undefined;
  /** The origin used when the request names none of ours (the listening address). */
  defaultOrigin: string;
  /** The port the server listens on. */
  port: number;
  /** Further browser origins allowed to call (EARSHOT_ALLOWED_ORIGINS); Earshot's own always are. */
  extraAllowedOrigins?: readonly string[];
}

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

const originOf = (url: string): string => new URL(url).origin;

export const publicOrigins = (o: PublicOriginsOptions): PublicOrigins => {
  const fixed = o.publicUrl ? originOf(o.publicUrl) : undefined;
  const fallback = fixed ?? originOf(o.defaultOrigin);
  const byHost = new Map<string, string>(fixed ? [] : LOOPBACK_HOSTS.map((h) => [`${h}:${o.port}`, `http://${h}:${o.port}`]));
  const all = [...new Set([fallback, ...byHost.values()])];
  const allowed = new Set([...all, ...(o.extraAllowedOrigins ?? []).map(originOf)]);
  return {
    all,
    of: (req) => (fixed ? fixed : (byHost.get((req.headers.host ?? "").toLowerCase()) ?? fallback)),
    allowsBrowserOrigin: (origin) => allowed.has(origin.toLowerCase()),
  };
};

/** EARSHOT_ALLOWED_ORIGINS: a comma-separated list of origins, each `scheme://host[:port]`. */
export const parseOriginList = (value: string): string[] =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const url = new URL(s);
      if ((url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== s.replace(/\/$/, "").toLowerCase()) {
        throw new Error(`${s} is not an origin (scheme://host[:port])`);
      }
      return url.origin;
    });
