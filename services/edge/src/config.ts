import { baseConfigShape, configPort, loadConfig } from "@earshot/platform";
import { z } from "zod";
import { parseOriginList } from "./oauth/public-origins";

const grpcAddress = z.string().regex(/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/, "must be host:port");

/** Settings of the edge that the all-in-one shares. */
export const edgeSettingsShape = {
  /** The origin clients use, e.g. https://earshot.example.com; defaults to http://localhost:<PORT>. */
  EARSHOT_PUBLIC_URL: z.string().url().optional(),
  /** Requests per minute per credential. */
  EARSHOT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /** How long a verified credential is trusted before it is checked again (revocation delay). */
  EARSHOT_CREDENTIAL_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(1000),
  /** Longest the edge uses a caller's cached memberships; project events update them sooner (without a bus: at most 1 s). */
  EARSHOT_MEMBERSHIP_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** The OAuth signing key file (JWKs rotate by kid); default <EARSHOT_DATA_DIR>/oauth-signing-keys.json. */
  EARSHOT_OAUTH_KEYS_FILE: z.string().min(1).optional(),
  /** Which proxies' X-Forwarded-For is believed (express "trust proxy"): client addresses for per-IP limits. */
  EARSHOT_TRUST_PROXY: z.string().min(1).default("loopback, linklocal, uniquelocal"),
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
};

export const gatewayConfigSchema = z.object({
  ...baseConfigShape,
  ...edgeSettingsShape,
  HOST: z.string().default("0.0.0.0"),
  PORT: configPort.default(8080),
  /** What this process serves: rest (the gateway deployable), mcp (mcp-gateway) or both. */
  EARSHOT_SURFACE: z.enum(["rest", "mcp", "both"]).optional(),
  ACCOUNT_GRPC_ADDR: grpcAddress.default("account:50051"),
  PROJECT_GRPC_ADDR: grpcAddress.default("project:50051"),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (): GatewayConfig => loadConfig(gatewayConfigSchema);
