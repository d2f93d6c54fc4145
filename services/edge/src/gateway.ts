import { randomUUID } from "node:crypto";
import { createServer, type RequestListener, type Server } from "node:http";
import { hostname } from "node:os";
import {
  type BaseConfig,
  type Clock,
  grpcTlsFromSettings,
  type EventBus,
  type InProcessChannel,
  type Logger,
  openServiceStore,
  resolveEncryptionKey,
  type Subscription,
  subscribeDomainEvents,
  systemClock,
  unsubscribeLinkKey,
} from "@earshot/platform";
import { MENTION_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { type BackendAddresses, connectBackends } from "./backends";
import { OPERATIONS } from "./catalog";
import { DashboardState, loadPublicFace } from "./catalog/public-dashboard/dashboard-state";
import { createGatewayApp } from "./gateway-app";
import { createAdminApp } from "./http/admin-app";
import type { Registry } from "prom-client";
import { createHttpMetrics, exposeBusMetrics } from "./http/metrics";
import { answerWhileStarting } from "./http/starting";
import { isLoopbackAddress, loopbackHostNames } from "./mcp/host-gate";
import { McpSessionStore } from "./mcp/sessions/session-store";
import { SessionStreams } from "./mcp/sessions/session-streams";
import type { McpSessions } from "./mcp/sessions/subscriptions";
import { createClientMetadataFetcher } from "./oauth/client-metadata";
import { openOAuthCollections } from "./oauth/oauth-store";
import { EDGE_STORE_NAME } from "./store-indexes";
import { ACCESS_TOKEN_SECONDS, EarshotOAuthProvider } from "./oauth/provider";
import { publicOrigins } from "./oauth/public-origins";
import { oauthRoutes } from "./oauth/routes";
import { loadSigningKeys, type WatchedSigningKeys, watchSigningKeys } from "./oauth/signing-keys";
import { activeAccountOf, oauthTokenVerifier } from "./oauth/token-verifier";
import { apiKeyVerifier, createCredentialVerifier, type CredentialVerifier } from "./pipeline/credentials";
import { createPipeline } from "./pipeline/execute";
import { IdempotencyStore } from "./pipeline/idempotency";
import type { WaitSlots } from "./pipeline/wait-slots";
import { MembershipCache } from "./pipeline/memberships";
import { appSignIn } from "./sessions/app-sign-in";
import { webApp } from "./web/web-app";
import { WebSessionStore, type WebSessionTimes } from "./sessions/session-store";
import { UnsubscribeUses } from "./web/unsubscribe-uses";
import { RateLimiter } from "./pipeline/rate-limit";

export interface StartedGateway {
  url: string;
  port: number;
  /** The admin port (metrics, detailed readiness) when one was asked for. */
  adminUrl?: string;
  /** The callers' memberships this process holds (kept current by project events). */
  memberships: MembershipCache;
  /** The MCP sessions this process serves (their store and the streams it holds), when it serves MCP. */
  mcpSessions?: McpSessions;
  /** The long polls each credential holds in this process (tests look at them). */
  waitSlots: WaitSlots;
  /** Stop accepting connections, finish in-flight requests (up to drainMs), close channels and the store. */
  stop(drainMs: number): Promise<void>;
}

export const DEFAULT_KEEP_ALIVE_SECONDS = 75;

export interface GatewayOptions {
  host: string;
  port: number;
  addresses: BackendAddresses;
  logger: Logger;
  /** Store settings: the edge keeps idempotency records and rate-limit counters in its own store. */
  config: BaseConfig;
  publicUrl?: string;
  rateLimitPerMinute: number;
  /** Failed authentications per minute per client address; 0 = no limit. */
  authFailuresPerMinute?: number;
  credentialCacheMs: number;
  /** Idle keep-alive connections are kept this long (EARSHOT_KEEP_ALIVE_SECONDS); 75 s unless said. */
  keepAliveSeconds?: number;
  clock?: Clock;
  /** REST and MCP by default (the all-in-one); the two deployables serve one each. */
  surfaces?: { rest: boolean; mcp: boolean };
  /** Where the OAuth signing keys live (created on first start when missing). */
  oauthKeysFile: string;
  /**
   * Watch the key file and sign with its new first key when it changes (a mounted Secret updated), keeping
   * dropped keys in the JWKS until the tokens they signed have expired. Off: read once at start.
   */
  reloadOAuthKeys?: boolean;
  /** Told after each reload of the key file (the kids served), or why a changed file was refused. */
  onOAuthKeysReloaded?: (outcome: { kids: string[] } | { error: Error }) => void;
  /** Requests per minute per client to each OAuth endpoint; 0 = no limit (tests). */
  oauthRateLimitPerMinute: number;
  trustProxy: false | number | string;
  /** Browser origins allowed besides Earshot's own; default: EARSHOT_ALLOWED_ORIGINS of `config`. */
  allowedOrigins?: readonly string[];
  /** Serve /metrics and the detailed /readyz on this port (same host); none when absent. */
  metricsPort?: number;
  /**
   * The registry the admin port serves (the process metrics in it already); a new one by default. The
   * all-in-one passes the one its hosted services count their RPCs in, so one scrape shows both.
   */
  metricsRegistry?: Registry;
  /**
   * Runs once the port is bound and before the app is installed; requests meanwhile get 503 + Retry-After.
   * Tests hold start-up here to see what early clients get.
   */
  beforeReady?: (listening: { url: string; port: number }) => Promise<void>;
  /** The bus carrying the project service's events, which keep the membership cache current. */
  bus?: EventBus;
  /** Longest a cached membership list is used; default EARSHOT_MEMBERSHIP_CACHE_MS of `config`. Without a bus, at most 1 s. */
  membershipCacheMs?: number;
  /** Requests per minute per client address to the public dashboards; default EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE of `config` (0: none). */
  dashboardRateLimitPerMinute?: number;
  /** The services hosted in this process (the all-in-one): calls to them skip the loopback socket. */
  inProcess?: InProcessChannel;
  /** The web app's session lifetimes; default EARSHOT_WEB_SESSION_IDLE_MINUTES and EARSHOT_WEB_SESSION_MAX_HOURS of `config`. */
  webSessions?: WebSessionTimes;
}

/** Without events, the cache's age is all that bounds how long a removed member keeps a stale membership. */
const MAX_AGE_WITHOUT_BUS_MS = 1000;

const listen = (server: Server, port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });

const closeServer = (server: Server): Promise<void> => {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
};

export const startGateway = async (options: GatewayOptions): Promise<StartedGateway> => {
  const clock = options.clock ?? systemClock;
  const tls = grpcTlsFromSettings(options.config);
  const backends = connectBackends(options.addresses, {
    callerSigningKey: options.config.EARSHOT_CALLER_SIGNING_KEY,
    ...(tls ? { tls } : {}),
    ...(options.inProcess ? { inProcess: options.inProcess } : {}),
  });
  const store = await openServiceStore(options.config, EDGE_STORE_NAME);
  const idempotency = new IdempotencyStore(store, clock);
  const rateLimiter = new RateLimiter(store, clock, { limit: options.rateLimitPerMinute, windowSeconds: 60 }, { logger: options.logger });
  const failures = options.authFailuresPerMinute ?? 60;
  const authFailureLimiter =
    failures > 0 ? new RateLimiter(store, clock, { limit: failures, windowSeconds: 60 }, { logger: options.logger }) : undefined;
  await Promise.all([idempotency.ensureIndexes(), rateLimiter.ensureIndexes()]);
  const configuredAge =
    options.membershipCacheMs ?? (options.config as { EARSHOT_MEMBERSHIP_CACHE_MS?: number }).EARSHOT_MEMBERSHIP_CACHE_MS ?? 60_000;
  const memberships = new MembershipCache({
    load: async (userId) => (await backends.project.listMemberships({ userId })).memberships,
    maxAgeMs: options.bus ? configuredAge : Math.min(configuredAge, MAX_AGE_WITHOUT_BUS_MS),
    now: () => clock.now().getTime(),
  });
  // Public dashboards' faces, kept current by project.dashboard_changed like the memberships (same bound).
  const dashboardState = new DashboardState({
    load: loadPublicFace(backends.project),
    maxAgeMs: options.bus ? configuredAge : Math.min(configuredAge, MAX_AGE_WITHOUT_BUS_MS),
    now: () => clock.now().getTime(),
  });
  const dashboardBudget =
    options.dashboardRateLimitPerMinute ?? (options.config as { EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE?: number }).EARSHOT_DASHBOARD_RATE_LIMIT_PER_MINUTE ?? 120;
  const dashboardLimiter =
    dashboardBudget > 0 ? new RateLimiter(store, clock, { limit: dashboardBudget, windowSeconds: 60 }, { logger: options.logger }) : undefined;
  // Every replica must see every event, so each process is a consumer group of its own.
  const membershipEvents: Subscription | undefined = options.bus
    ? await subscribeDomainEvents({
        bus: options.bus,
        store,
        clock,
        logger: options.logger,
        groupId: `edge.memberships.${hostname()}.${process.pid}.${randomUUID().slice(0, 8)}`,
        events: PROJECT_EVENTS,
        startFrom: "latest",
        handle: async (event) => {
          memberships.apply(event);
          dashboardState.apply(event);
        },
      })
    : undefined;
  // MCP sessions live in the store every MCP replica reads; each replica's streams hear of new mentions
  // through a consumer group of its own (every replica must see every event), started at the newest event.
  const surfaces = options.surfaces ?? { rest: true, mcp: true };
  const sessionStore = surfaces.mcp ? new McpSessionStore(store, clock) : undefined;
  if (sessionStore) await sessionStore.ensureIndexes();
  const webConfig = options.config as { EARSHOT_WEB_SESSION_IDLE_MINUTES?: number; EARSHOT_WEB_SESSION_MAX_HOURS?: number };
  // People's sessions: the web app's (REST gateway) and the OAuth sign-in page's (either gateway), one store.
  const webSessions = new WebSessionStore(
    store,
    clock,
    options.webSessions ?? { idleMs: (webConfig.EARSHOT_WEB_SESSION_IDLE_MINUTES ?? 120) * 60_000, absoluteMs: (webConfig.EARSHOT_WEB_SESSION_MAX_HOURS ?? 168) * 3_600_000 },
  );
  await webSessions.ensureIndexes();
  const unsubscribeUses = surfaces.rest ? new UnsubscribeUses(store, clock) : undefined;
  if (unsubscribeUses) await unsubscribeUses.ensureIndexes();
  // The alert emails' one-click unsubscribe links are signed by the digest service with a key both derive from this one.
  const linkKey = surfaces.rest
    ? unsubscribeLinkKey(
        await resolveEncryptionKey({ configured: (options.config as { EARSHOT_ENCRYPTION_KEY?: string }).EARSHOT_ENCRYPTION_KEY, dataDir: options.config.EARSHOT_DATA_DIR, embedded: !options.config.MONGO_URL }),
      )
    : undefined;
  let mcpSessions: McpSessions | undefined;
  let waitSlots: WaitSlots | undefined;
  let mentionEvents: Subscription | undefined;
  const listenForMentions = async (sessions: McpSessions) => {
    if (!options.bus) {
      options.logger.warn("MCP resource subscriptions are accepted but no notification is sent: this gateway has no event bus (KAFKA_BROKERS)");
      return;
    }
    mentionEvents = await subscribeDomainEvents({
      bus: options.bus,
      store,
      clock,
      logger: options.logger,
      groupId: `edge.mcp-mentions.${hostname()}.${process.pid}.${randomUUID().slice(0, 8)}`,
      events: MENTION_EVENTS,
      startFrom: "latest",
      handle: async (event) => {
        const change = event.type === "mention.created" ? { projectId: event.data.projectId, mentionId: event.data.mention?.id ?? "" } : { projectId: event.data.projectId, mentionId: event.data.mentionId };
        // Told in the background: a slow session must not hold the next event back from the others.
        void sessions.streams.mentionChanged(change).catch((err: unknown) => options.logger.warn({ err }, "MCP notifications for a mention failed"));
      },
    });
  };
  let draining = false;
  const metrics = createHttpMetrics(options.metricsRegistry);
  if (options.bus) exposeBusMetrics(metrics.registry, options.bus.metrics);
  let watchedKeys: WatchedSigningKeys | undefined;
  const buildApp = async (url: string, port: number): Promise<RequestListener> => {
    const keys = options.reloadOAuthKeys
      ? (watchedKeys = await watchSigningKeys(options.oauthKeysFile, {
          clock,
          retainMs: ACCESS_TOKEN_SECONDS * 1000,
          onReload: (outcome) => {
            if ("kids" in outcome) options.logger.info({ kids: outcome.kids }, "OAuth signing keys reloaded");
            else options.logger.error({ err: outcome.error, file: options.oauthKeysFile }, "OAuth signing key file refused; the keys in use stay");
            options.onOAuthKeysReloaded?.(outcome);
          },
        }))
      : await loadSigningKeys(options.oauthKeysFile);
    const collections = await openOAuthCollections(store);
    const origins = publicOrigins({
      publicUrl: options.publicUrl,
      defaultOrigin: url,
      port,
      // The loaded configuration carries the edge settings as well as the base ones.
      extraAllowedOrigins: options.allowedOrigins ?? (options.config as { EARSHOT_ALLOWED_ORIGINS?: string[] }).EARSHOT_ALLOWED_ORIGINS,
    });
    let verifier: CredentialVerifier | undefined;
    const provider = new EarshotOAuthProvider({
      collections,
      keys,
      clock,
      origins,
      isUserActive: async (userId) => (await activeAccountOf(backends, userId)) !== undefined,
      metadataFetcher: createClientMetadataFetcher(),
      onFamilyRevoked: (family) => verifier?.forgetUser(family.userId),
    });
    verifier = createCredentialVerifier([apiKeyVerifier(backends), oauthTokenVerifier(provider, backends)], { cacheMs: options.credentialCacheMs, now: () => clock.now().getTime() });
    const pipeline = createPipeline({ backends, verifier, rateLimiter, authFailureLimiter, idempotency, memberships, clock, logger: options.logger, publicUrl: url });
    waitSlots = pipeline.waitSlots;
    if (sessionStore) {
      mcpSessions = { store: sessionStore, streams: new SessionStreams({ sessions: sessionStore, pipeline, operations: OPERATIONS, logger: options.logger, now: () => clock.now().getTime() }) };
      await listenForMentions(mcpSessions);
    }
    const oauth = oauthRoutes({
      origins,
      operations: OPERATIONS,
      provider,
      collections,
      keys,
      backends,
      logger: options.logger,
      now: () => clock.now(),
      rateLimit: options.oauthRateLimitPerMinute === 0 ? false : { windowMs: 60_000, max: options.oauthRateLimitPerMinute },
      sessions: webSessions,
      signIn: appSignIn(webSessions, url.startsWith("https:")),
    });
    return createGatewayApp({
      backends,
      pipeline,
      operations: OPERATIONS,
      logger: options.logger,
      publicUrl: url,
      isDraining: () => draining,
      surfaces,
      oauth,
      ...(surfaces.rest && unsubscribeUses && linkKey
        ? {
            web: webApp({
              sessions: webSessions,
              pipeline,
              operations: OPERATIONS,
              backends,
              logger: options.logger,
              origins,
              secureCookies: url.startsWith("https:"),
              clock,
              unsubscribe: { linkKey, uses: unsubscribeUses },
            }),
            appSignIn: appSignIn(webSessions, url.startsWith("https:")),
          }
        : {}),
      trustProxy: options.trustProxy,
      metrics,
      publicOrigins: origins,
      dashboards: { state: dashboardState, ...(dashboardLimiter ? { limiter: dashboardLimiter } : {}) },
      ...(isLoopbackAddress(options.host) ? { mcpHostNames: loopbackHostNames(port, options.publicUrl) } : {}),
      ...(mcpSessions ? { mcpSessions } : {}),
    });
  };
  // The public URL defaults to the bound port, known only after listening, so the app is built after;
  // until then every request is answered 503 (answerWhileStarting), never left waiting.
  let handler: RequestListener = answerWhileStarting;
  const server = createServer((req, res) => handler(req, res));
  // Idle connections outlive the proxies' and pooled clients' own idle timeouts, so none of them reuses a
  // connection the gateway is closing ("other side closed", a 502). The time to receive a request's headers
  // is longer still, as Node requires. The drain closes idle connections at once (stop below).
  server.keepAliveTimeout = (options.keepAliveSeconds ?? DEFAULT_KEEP_ALIVE_SECONDS) * 1000;
  server.headersTimeout = server.keepAliveTimeout + 1000;
  const host = ["0.0.0.0", "::", "127.0.0.1"].includes(options.host) ? "localhost" : options.host;
  let port = options.port;
  let url = "";
  let admin: { server: Server; url: string } | undefined;
  // Everything opened above is closed again if any step fails, binding the port (in use) included.
  try {
    port = await listen(server, options.port, options.host);
    url = (options.publicUrl ?? `http://${host}:${port}`).replace(/\/+$/, "");
    await options.beforeReady?.({ url, port });
    handler = await buildApp(url, port);
    if (options.metricsPort !== undefined) {
      const adminServer = createServer(createAdminApp(backends, metrics, () => draining));
      const adminPort = await listen(adminServer, options.metricsPort, options.host);
      admin = { server: adminServer, url: `http://${host}:${adminPort}` };
    }
  } catch (err) {
    if (server.listening) await closeServer(server);
    watchedKeys?.close();
    await membershipEvents?.stop();
    await mentionEvents?.stop();
    mcpSessions?.streams.close();
    backends.close();
    await rateLimiter.close();
    await authFailureLimiter?.close();
    await dashboardLimiter?.close();
    await store.close();
    throw err;
  }
  options.logger.info({ url, port, adminUrl: admin?.url }, "gateway listening");
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    ...(admin ? { adminUrl: admin.url } : {}),
    memberships,
    ...(mcpSessions ? { mcpSessions: mcpSessions as McpSessions } : {}),
    waitSlots: waitSlots!,
    stop: (drainMs) =>
      (stopped ??= (async () => {
        draining = true;
        if (admin) await closeServer(admin.server);
        // Open MCP streams would hold the drain to its end: they close now, and their clients reconnect elsewhere.
        await mentionEvents?.stop();
        mcpSessions?.streams.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        timer.unref();
        await closed;
        clearTimeout(timer);
        watchedKeys?.close();
        await membershipEvents?.stop();
        backends.close();
        await rateLimiter.close();
        await authFailureLimiter?.close();
        await dashboardLimiter?.close();
        await store.close();
      })()),
  };
};
