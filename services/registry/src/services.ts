import { accountV1, alertV1, digestV1, integrationV1, keywordV1, mentionV1, projectV1, webhookV1 } from "@earshot/proto";
import type { ChannelCredentials, ClientOptions } from "@grpc/grpc-js";

// The one list of Earshot's services. Everything that must know every service is derived from it: the
// edge's typed clients and <NAME>_GRPC_ADDR settings, the services the all-in-one hosts, the test
// harness's clients, and the deployment files (npm run sync-services writes them; a test fails when
// they are out of date). An entry is a deployable: a service is one entry, or several naming one package
// and one store. A new service is one entry here; what else a host must know (its settings, the
// topics it consumes) its ServiceModule declares, and its subpath exports its package.json.

/** How a deployable runs in Kubernetes; defaults fill what an entry leaves out. */
export interface DeployableSpec {
  /** Listen port: GRPC_PORT of a gRPC service, PORT of the HTTP edge. */
  port: number;
  /** The package's compiled entry, relative to its directory. */
  entry: string;
  replicaCount: number;
  resources: { requests: { cpu: string; memory: string }; limits: { memory: string } };
  autoscaling: { enabled: boolean; minReplicas: number; maxReplicas: number; targetCPUUtilizationPercentage: number };
  podDisruptionBudget: { enabled: boolean; minAvailable: number };
}

/** A generated gRPC client class (ts-proto `outputServices=grpc-js`). */
export interface ServiceClientClass {
  new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>): object;
  service: Record<string, unknown>;
}

export interface ServiceEntry {
  /** Short name: the deployable, `<NAME>_GRPC_ADDR`, and the store (database / data subdir) unless `store` says otherwise. */
  name: string;
  /**
   * The store it shares when it is one of a service's several deployables over one store (the webhook
   * service's `webhook` API and `delivery` worker): the entries of one service name the same `module`, and
   * the second names the first's store. Its module declares the same (`ServiceModule.store`).
   */
  store?: string;
  /** The protobuf package its contract lives in (`proto/earshot/<domain>/v1/`). */
  protoPackage: string;
  /**
   * Its gRPC client, when it serves a gRPC API. A pure event consumer has none: the edge gets no client
   * and no <NAME>_GRPC_ADDR for it, and its server answers only gRPC health (the probes').
   */
  client?: ServiceClientClass;
  /** The workspace package (`services/<dir>`) exporting `<name>Service`, the deployable's ServiceModule. */
  module: string;
  deployable?: Partial<DeployableSpec>;
  /**
   * The get_usage limits it counts, by the API's names (`keywords`, `mentionsThisMonth`): its
   * GetWorkspaceUsage answers an `earshot.common.v1.WorkspaceUsage` holding a count for each, and the
   * edge asks every service that declares some, in parallel.
   */
  usage?: readonly string[];
  /**
   * The other services it is a gRPC client of. The edge calls every service with a client; a service
   * calling another must name it here: the NetworkPolicies let only these callers reach a service's port.
   */
  calls?: readonly string[];
  /** It reaches third parties on the public internet (port 443, private ranges excluded). */
  internet?: boolean;
}

export const SERVICES = [
  { name: "account", protoPackage: "earshot.account.v1", client: accountV1.AccountServiceClient, module: "@earshot/account" },
  { name: "project", protoPackage: "earshot.project.v1", client: projectV1.ProjectServiceClient, module: "@earshot/project", usage: ["projects", "seats"] },
  { name: "keyword", protoPackage: "earshot.keyword.v1", client: keywordV1.KeywordServiceClient, module: "@earshot/keyword", usage: ["keywords"] },
  { name: "mention", protoPackage: "earshot.mention.v1", client: mentionV1.MentionServiceClient, module: "@earshot/mention", usage: ["mentionsThisMonth"] },
  { name: "integration", protoPackage: "earshot.integration.v1", client: integrationV1.IntegrationServiceClient, module: "@earshot/integration", usage: ["linkedinSyncsPerDay"], internet: true },
  { name: "alert", protoPackage: "earshot.alert.v1", client: alertV1.AlertServiceClient, module: "@earshot/alert" },
  { name: "digest", protoPackage: "earshot.digest.v1", client: digestV1.DigestServiceClient, module: "@earshot/digest" },
  { name: "webhook", protoPackage: "earshot.webhook.v1", client: webhookV1.WebhookServiceClient, module: "@earshot/webhook", usage: ["webhookDeliveriesPerDay"] },
  // The webhook service's second deployable: the delivery worker, over the webhook service's store.
  { name: "delivery", protoPackage: "earshot.webhook.v1", module: "@earshot/webhook", store: "webhook", deployable: { entry: "dist/delivery-main.js" }, internet: true },
] as const satisfies readonly ServiceEntry[];

export type RegisteredService = (typeof SERVICES)[number];
/** The registered services with a gRPC API: those the edge and the other services can call. */
export type CallableService = Extract<RegisteredService, { client: ServiceClientClass }>;
export type ServiceName = CallableService["name"];

const isCallable = <S extends ServiceEntry>(s: S): s is S & { client: ServiceClientClass } => s.client !== undefined;

/** The services with a gRPC API, in registry order. */
export const callableServices = <S extends ServiceEntry>(services: readonly S[]): Array<S & { client: ServiceClientClass }> => services.filter(isCallable);

export const CALLABLE_SERVICES: readonly CallableService[] = callableServices(SERVICES as readonly RegisteredService[]) as CallableService[];

/** The HTTP edge's deployables: one package (`services/edge`), two surfaces. */
export const EDGE_DEPLOYABLES = [
  { name: "gateway", entry: "dist/gateway-main.js" },
  { name: "mcp-gateway", entry: "dist/mcp-gateway-main.js" },
] as const;

export const EDGE_PACKAGE = "@earshot/edge";

const GRPC_DEFAULTS: DeployableSpec = {
  port: 50051,
  entry: "dist/main.js",
  replicaCount: 2,
  resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
  autoscaling: { enabled: false, minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 70 },
  podDisruptionBudget: { enabled: true, minAvailable: 1 },
};

const HTTP_DEFAULTS: Omit<DeployableSpec, "entry"> = {
  port: 8080,
  replicaCount: 2,
  resources: { requests: { cpu: "200m", memory: "128Mi" }, limits: { memory: "512Mi" } },
  autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 },
  podDisruptionBudget: { enabled: true, minAvailable: 1 },
};

/** One process image argument: a gRPC service or a surface of the edge. */
export interface Deployable extends DeployableSpec {
  name: string;
  protocol: "grpc" | "http";
  /** A gRPC service others call (its <NAME>_GRPC_ADDR is published); false for a consumer-only one and the edge. */
  callable: boolean;
  /** The workspace package that holds its entry. */
  module: string;
  /** The deployables that call its gRPC API (the edge's two surfaces and the services declaring it in `calls`). */
  callers: string[];
  /** The callable services it dials. */
  calls: string[];
  /** It may reach the public internet on 443. */
  internet: boolean;
}

/** Every deployable, gRPC services first, in registry order. */
export const deployables = (services: readonly ServiceEntry[] = SERVICES): Deployable[] => {
  const callable = new Set(callableServices(services).map((s) => s.name));
  for (const s of services) {
    const unknown = (s.calls ?? []).filter((c) => !callable.has(c));
    if (unknown.length > 0) throw new Error(`service ${s.name} calls ${unknown.join(", ")}, which no registered service with a client is`);
  }
  const edge = EDGE_DEPLOYABLES.map((d) => d.name);
  const callersOf = (name: string): string[] =>
    callable.has(name) ? [...edge, ...services.filter((s) => (s.calls ?? []).includes(name)).map((s) => s.name)] : [];
  return [
    ...services.map((s) => ({
      ...GRPC_DEFAULTS,
      ...s.deployable,
      name: s.name,
      protocol: "grpc" as const,
      callable: callable.has(s.name),
      module: s.module,
      callers: callersOf(s.name),
      calls: [...(s.calls ?? [])],
      internet: s.internet ?? false,
    })),
    ...EDGE_DEPLOYABLES.map((d) => ({ ...HTTP_DEFAULTS, ...d, protocol: "http" as const, callable: false, module: EDGE_PACKAGE, callers: [], calls: [...callable], internet: false })),
  ];
};
