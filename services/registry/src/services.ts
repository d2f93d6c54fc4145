import { accountV1, integrationV1, keywordV1, mentionV1, projectV1 } from "@earshot/proto";
import type { ChannelCredentials, ClientOptions } from "@grpc/grpc-js";

// The one list of Earshot's gRPC services. Everything that must know every service is derived from it:
// the edge's typed clients and <NAME>_GRPC_ADDR settings, the services the all-in-one hosts, the test
// harness's clients, and the deployment files (npm run sync-services writes them; a test fails when
// they are out of date). A new service is one entry here.

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
  /** Short name: the deployable, the store (database / data subdir), `<NAME>_GRPC_ADDR`. */
  name: string;
  /** The protobuf package its contract lives in (`proto/earshot/<domain>/v1/`). */
  protoPackage: string;
  client: ServiceClientClass;
  /** The workspace package (`services/<dir>`) exporting `<name>Service`, its ServiceModule. */
  module: string;
  deployable?: Partial<DeployableSpec>;
  /**
   * The get_usage limits it counts, by the API's names (`keywords`, `mentionsThisMonth`): its
   * GetWorkspaceUsage answers an `earshot.common.v1.WorkspaceUsage` holding a count for each, and the
   * edge asks every service that declares some, in parallel.
   */
  usage?: readonly string[];
}

export const SERVICES = [
  { name: "account", protoPackage: "earshot.account.v1", client: accountV1.AccountServiceClient, module: "@earshot/account" },
  { name: "project", protoPackage: "earshot.project.v1", client: projectV1.ProjectServiceClient, module: "@earshot/project", usage: ["projects", "seats"] },
  { name: "keyword", protoPackage: "earshot.keyword.v1", client: keywordV1.KeywordServiceClient, module: "@earshot/keyword", usage: ["keywords"] },
  { name: "mention", protoPackage: "earshot.mention.v1", client: mentionV1.MentionServiceClient, module: "@earshot/mention", usage: ["mentionsThisMonth"] },
  { name: "integration", protoPackage: "earshot.integration.v1", client: integrationV1.IntegrationServiceClient, module: "@earshot/integration", usage: ["linkedinSyncsPerDay"] },
] as const satisfies readonly ServiceEntry[];

export type RegisteredService = (typeof SERVICES)[number];
export type ServiceName = RegisteredService["name"];

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
  /** The workspace package that holds its entry. */
  module: string;
}

/** Every deployable, gRPC services first, in registry order. */
export const deployables = (services: readonly ServiceEntry[] = SERVICES): Deployable[] => [
  ...services.map((s) => ({ ...GRPC_DEFAULTS, ...s.deployable, name: s.name, protocol: "grpc" as const, module: s.module })),
  ...EDGE_DEPLOYABLES.map((d) => ({ ...HTTP_DEFAULTS, ...d, protocol: "http" as const, module: EDGE_PACKAGE })),
];
