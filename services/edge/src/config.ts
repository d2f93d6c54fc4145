import { isIP } from "node:net";
import { baseConfigShape, configPort, ENCRYPTION_KEY_SETTING, loadConfig, metricsPortSetting, publicUrlSetting } from "@earshot/platform";
import { deployables, type GrpcAddrVar, grpcAddrVar } from "@earshot/registry";
import { z } from "zod";
import { parseOriginList } from "./oauth/public-origins";

const grpcAddress = z.string().regex(/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/, "must be host:port");

const isProxyEntry = (entry: string): boolean => {
  if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  return rest.length === 0 && isIP(address) !== 0 && (prefix === undefined || /^\d{1,3}$/.test(prefix));
};

/**
 * express "trust proxy" from EARSHOT_TRUST_PROXY: `none` (the default: clients reach the edge directly),
 * a hop count (the proxies in front, e.g. 1 for an ingress), or the proxies' addresses and subnets.
 * Trusting every peer would let any client name its own address and escape per-address limits.
 */
export const trustProxySetting = z
  .string()
  .trim()
  .default("none")
  .transform((value, ctx): false | number | string => {
    if (value === "" || value === "none" || value === "false" || value === "0") return false;
    if (/^\d{1,2}$/.test(value)) return Number(value);
    const entries = value.split(",").map((e) => e.trim());
    if (entries.every(isProxyEntry)) return entries.join(", ");
    ctx.addIssue({ code: "custom", message: "must be none, a hop count, or proxy addresses/subnets (loopback, linklocal, uniquelocal allowed)" });
    return z.NEVER;
  });

/** `<NAME>_GRPC_ADDR` of every service with a gRPC API, defaulting to its in-cluster Service name and port. */
const serviceAddressesShape = Object.fromEntries(
  deployables()
    .filter((d) => d.callable)
    .map((d) => [grpcAddrVar(d.name), grpcAddress.default(`${d.name}:${d.port}`)]),
) as Record<GrpcAddrVar, z.ZodDefault<typeof grpcAddress>>;

/** Settings of the edge that the all-in-one shares. */
export const edgeSettingsShape = {
  /** The origin clients use, e.g. https://earshot.example.com; defaults to http://localhost:<PORT>. */
  EARSHOT_PUBLIC_URL: publicUrlSetting,
  /** Requests per minute per credential. */
  EARSHOT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /**
   * How long an idle keep-alive connection stays open (seconds): longer than the idle timeouts of the
   * proxies and pooled clients in front of the gateway (ingress-nginx keeps upstream connections 60 s, cloud
   * load balancers 60-350 s), so the gateway never closes a connection one of them is about to reuse.
   */
  EARSHOT_KEEP_ALIVE_SECONDS: z.coerce.number().int().min(1).max(3600).default(75),
  /** How long a verified credential is trusted before it is checked again (revocation delay). */
  EARSHOT_CREDENTIAL_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(1000),
  /** Longest the edge uses a caller's cached memberships; project events update them sooner (without a bus: at most 1 s). */
  EARSHOT_MEMBERSHIP_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /**
   * The OAuth signing key file (JWKs rotate by kid); default <EARSHOT_DATA_DIR>/oauth-signing-keys.json. When
   * set, the file is watched: a new first key signs from then on without a restart, and dropped keys keep
   * verifying until the tokens they signed expire.
   */
  EARSHOT_OAUTH_KEYS_FILE: z.string().min(1).optional(),
  /** Which proxies' X-Forwarded-For is believed (express "trust proxy"): client addresses for per-IP limits. */
  EARSHOT_TRUST_PROXY: trustProxySetting,
  /** Requests per minute per client address to each OAuth endpoint; 0 turns the limit off. */
  EARSHOT_OAUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(60),
  /** Browser origins, besides Earshot's own, allowed to call /mcp and post the OAuth forms (comma-separated). */
  EARSHOT_ALLOWED_ORIGINS: z
    .string()
    .default("")
    .transform((value, ctx) => {
      try {
        return parseOriginList(value);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** Failed authentications per minute per client address before its requests get 429; 0 turns the limit off. */
  EARSHOT_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(60),
  /** Requests per minute per client address to the public dashboards (page and JSON); 0 turns the limit off. */
  EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(120),
  /** Port of the admin listener (/metrics, /readyz per service) on the same host; unset = none. */
  EARSHOT_METRICS_PORT: metricsPortSetting,
  /** The web app (/app): a session unused this many minutes ends (sign in again). */
  EARSHOT_WEB_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(43_200).default(120),
  /** The web app: a session ends this many hours after sign-in, however much it is used. */
  EARSHOT_WEB_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(8_760).default(168),
  /** The key the alert emails' one-click unsubscribe links are checked with (derived from it, as the digest service signs them). */
  EARSHOT_ENCRYPTION_KEY: ENCRYPTION_KEY_SETTING,
};

export const gatewayConfigSchema = z.object({
  ...baseConfigShape,
  ...edgeSettingsShape,
  HOST: z.string().default("0.0.0.0"),
  PORT: configPort.default(8080),
  /** What this process serves: rest (the gateway deployable), mcp (mcp-gateway) or both. */
  EARSHOT_SURFACE: z.enum(["rest", "mcp", "both"]).optional(),
  ...serviceAddressesShape,
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (): GatewayConfig => loadConfig(gatewayConfigSchema);
