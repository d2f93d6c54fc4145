import type { DeclaredSetting } from "@earshot/platform";
import { grpcAddrVar } from "../names";
import type { Deployable } from "../services";
import { commentLines, optionalSecrets, requiredSecrets } from "./settings";

// The kustomize base in deploy/k8s, derived from the registry's deployables and, for the example Secret,
// from the secret settings the services' modules declare.

export const K8S_DIR = "deploy/k8s";
/** The metrics port of every deployable (EARSHOT_METRICS_PORT, container port `metrics`); never part of a Service. */
export const K8S_METRICS_PORT = 9464;

const header = (what: string) => `# Derived from services/registry (npm run sync-services); ${what}\n`;

const edgeOnly = (d: Deployable, text: string) => (d.protocol === "http" ? text : "");

/** The named port the probes ask: the edge's own HTTP port; a gRPC service's metrics port (its /healthz and /readyz). */
export const probePort = (d: Pick<Deployable, "protocol">): "http" | "metrics" => (d.protocol === "http" ? "http" : "metrics");

/** Seconds a terminating pod keeps serving before its drain (the endpoints stop sending it calls meanwhile). */
export const K8S_PRE_STOP_SECONDS = 5;
/** The user and group every pod runs as (the image's, above 10000). */
export const K8S_UID = 10001;
/** Ports of MongoDB, Kafka (plain and TLS) and SMTP, the datastores every deployable may dial. */
export const DATASTORE_PORTS = [27017, 9092, 9093, 25, 465, 587];
const PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "127.0.0.0/8"];

const podPeer = (name: string) => `        - podSelector: { matchLabels: { app.kubernetes.io/name: ${name} } }\n`;

/** Who may reach a deployable's port and where it may connect (the namespace's default deny closes the rest). */
export const renderK8sNetworkPolicy = (d: Deployable, ports: ReadonlyMap<string, number>): string => `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: ${d.name}
spec:
  podSelector: { matchLabels: { app.kubernetes.io/name: ${d.name} } }
  policyTypes: [Ingress, Egress]
  ingress:
${
  d.protocol === "http"
    ? `    # The ingress controller's namespace (REPLACE if yours is not ingress-nginx), on the public port only.
    - from:
        - namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: ingress-nginx } }
      ports: [{ port: ${d.port}, protocol: TCP }]
`
    : d.callers.length > 0
      ? `    # Only the deployables that call its gRPC API (derived from the service registry).
    - from:
${d.callers.map(podPeer).join("")}      ports: [{ port: ${d.port}, protocol: TCP }]
`
      : ""
}    # The metrics scraper's namespace (REPLACE if yours is not monitoring), on the metrics port only.
    - from:
        - namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: monitoring } }
      ports: [{ port: ${K8S_METRICS_PORT}, protocol: TCP }]
  egress:
    # DNS.
    - ports: [{ port: 53, protocol: UDP }, { port: 53, protocol: TCP }]
    # MongoDB, Kafka and SMTP, by port.
    - ports: [${DATASTORE_PORTS.map((p) => `{ port: ${p}, protocol: TCP }`).join(", ")}]
${d.calls
  .map((c) => `    - to:\n${podPeer(c)}      ports: [{ port: ${ports.get(c) ?? 50051}, protocol: TCP }]\n`)
  .join("")}${
  d.internet
    ? `    # Third-party APIs and webhook receivers: the internet on 443, never the private ranges.
    - to:
        - ipBlock: { cidr: 0.0.0.0/0, except: [${PRIVATE_RANGES.join(", ")}] }
      ports: [{ port: 443, protocol: TCP }]
`
    : ""
}`;

export const renderK8sDeployable = (d: Deployable, ports: ReadonlyMap<string, number> = new Map()): string => `${header("edit the registry, not this file.")}# Its own identity, with no Kubernetes API token: no Earshot process talks to the API server.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${d.name}
  labels: { app.kubernetes.io/name: ${d.name} }
automountServiceAccountToken: false
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${d.name}
  labels: { app.kubernetes.io/name: ${d.name} }
spec:
  replicas: ${d.replicaCount}
  selector:
    matchLabels: { app.kubernetes.io/name: ${d.name} }
  template:
    metadata:
      labels: { app.kubernetes.io/name: ${d.name} }
      # Metrics are served on their own port (named metrics), never on the public one.
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "${K8S_METRICS_PORT}"
        prometheus.io/path: /metrics
    spec:
      serviceAccountName: ${d.name}
      automountServiceAccountToken: false
      # The preStop pause, then SIGTERM drains within 10 s.
      terminationGracePeriodSeconds: ${15 + K8S_PRE_STOP_SECONDS}
      securityContext:
        runAsNonRoot: true
        runAsUser: ${K8S_UID}
        runAsGroup: ${K8S_UID}
        fsGroup: ${K8S_UID}
        seccompProfile: { type: RuntimeDefault }
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector: { matchLabels: { app.kubernetes.io/name: ${d.name} } }
      containers:
        - name: ${d.name}
          image: earshot
          imagePullPolicy: IfNotPresent
          args: ["${d.name}"]
          ports:
            - { name: ${d.protocol}, containerPort: ${d.port} }
            - { name: metrics, containerPort: ${K8S_METRICS_PORT} }
          env:
${
  d.protocol === "grpc"
    ? `            - { name: GRPC_HOST, value: "0.0.0.0" }
            - { name: GRPC_PORT, value: "${d.port}" }
`
    : `            - { name: HOST, value: "0.0.0.0" }
            - { name: PORT, value: "${d.port}" }
            - { name: EARSHOT_OAUTH_KEYS_FILE, value: /etc/earshot/oauth/oauth-signing-keys.json }
`
}            - { name: EARSHOT_METRICS_PORT, value: "${K8S_METRICS_PORT}" }
            - { name: KAFKA_CLIENT_ID, value: earshot-${d.name} }
            # The Secret is mounted as files (the secrets volume), never passed as environment values.
            - { name: EARSHOT_SECRETS_DIR, value: /etc/earshot/secrets }
          envFrom:
            - configMapRef: { name: earshot-config }
${
  d.protocol === "grpc"
    ? `          # Plain HTTP on the metrics port (ready while gRPC is SERVING and not draining): a kubelet's native
          # gRPC probe could not present the client certificate the gRPC port requires under mutual TLS.
`
    : ""
}          readinessProbe:
            httpGet: { path: /readyz, port: ${probePort(d)} }
            periodSeconds: 5
          livenessProbe:
            httpGet: { path: /healthz, port: ${probePort(d)} }
            periodSeconds: 10
            failureThreshold: 3
          lifecycle:
            # Serve on while the endpoint removal reaches every proxy, so a rolling update drops no request.
            preStop:
              exec: { command: ["node", "-e", "setTimeout(() => {}, ${K8S_PRE_STOP_SECONDS * 1000})"] }
          resources:
            requests: { cpu: ${d.resources.requests.cpu}, memory: ${d.resources.requests.memory} }
            # Add a cpu limit to cap it (none by default: throttling stalls a Node event loop).
            limits: { memory: ${d.resources.limits.memory} }
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            runAsNonRoot: true
            runAsUser: ${K8S_UID}
            runAsGroup: ${K8S_UID}
            capabilities: { drop: ["ALL"] }
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
            # EARSHOT_DATA_DIR: mail is written there as .eml files when EARSHOT_SMTP_URL is unset.
            - { name: data, mountPath: /data }
            - { name: secrets, mountPath: /etc/earshot/secrets, readOnly: true }
${edgeOnly(d, `            - { name: oauth-keys, mountPath: /etc/earshot/oauth, readOnly: true }\n`)}      volumes:
        - { name: tmp, emptyDir: {} }
        - { name: data, emptyDir: {} }
        # EARSHOT_SECRETS_DIR: a file per key of earshot-secrets, readable by the pod's group only.
        - name: secrets
          # defaultMode 288 is 0440 octal, written in decimal, which every YAML parser reads alike.
          secret: { secretName: earshot-secrets, defaultMode: 288 }
${edgeOnly(
  d,
  `        # Every edge replica signs and verifies OAuth tokens with the same keys:
        # node deploy/generate-oauth-keys.js > oauth-signing-keys.json
        # kubectl create secret generic earshot-oauth-keys --from-file=oauth-signing-keys.json
        - name: oauth-keys
          secret: { secretName: earshot-oauth-keys }
`,
)}---
apiVersion: v1
kind: Service
metadata:
  name: ${d.name}
  labels: { app.kubernetes.io/name: ${d.name} }
spec:
  selector: { app.kubernetes.io/name: ${d.name} }
  ports:
${
  d.protocol === "grpc"
    ? `    - { name: grpc, port: ${d.port}, targetPort: grpc, appProtocol: grpc }`
    : `    - { name: http, port: ${d.port}, targetPort: http, appProtocol: http }`
}
---
${renderK8sNetworkPolicy(d, ports)}${
  d.podDisruptionBudget.enabled
    ? `---
# A voluntary eviction (a node drain) leaves this many replicas serving.
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: ${d.name}
  labels: { app.kubernetes.io/name: ${d.name} }
spec:
  minAvailable: ${d.podDisruptionBudget.minAvailable}
  selector:
    matchLabels: { app.kubernetes.io/name: ${d.name} }
`
    : ""
}`;

/** The namespace the kustomize base puts every object in. */
export const K8S_NAMESPACE = "earshot";

export const renderKustomization = (ds: readonly Deployable[], imageTag: string): string => `${header("the resources follow the registry.")}apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
# Plain manifests for the production shape: MongoDB (replica set) and Kafka run elsewhere; set their
# addresses in configmap.yaml and secret.yaml. Every service runs from the one image.
namespace: ${K8S_NAMESPACE}
labels:
  - pairs:
      app.kubernetes.io/part-of: earshot
    includeSelectors: false
resources:
  - namespace.yaml
  - configmap.yaml
  - secret.yaml
  - networkpolicy.yaml
  - ingress.yaml
${ds.map((d) => `  - ${d.name}.yaml\n`).join("")}# The chart's appVersion; pin a digest (digest: sha256:...) in an overlay for an immutable image.
images:
  - name: earshot
    newName: earshot
    newTag: "${imageTag}"
`;

export const renderK8sConfigMap = (ds: readonly Deployable[]): string => `${header("its <NAME>_GRPC_ADDR lines follow the registry.")}# Settings every service reads (see services/platform/src/config.ts). REPLACE KAFKA_BROKERS and
# EARSHOT_PUBLIC_URL with yours; secrets (MONGO_URL, EARSHOT_SMTP_URL) live in secret.yaml.
apiVersion: v1
kind: ConfigMap
metadata:
  name: earshot-config
data:
  # Every process refuses to start without MongoDB, Kafka and the caller signing key.
  EARSHOT_MODE: cluster
  LOG_LEVEL: info
  KAFKA_BROKERS: kafka-0.kafka:9092,kafka-1.kafka:9092,kafka-2.kafka:9092
  MONGO_DB_PREFIX: earshot
  EARSHOT_MAIL_FROM: Earshot <no-reply@earshot.example.com>
  EARSHOT_PUBLIC_URL: https://earshot.example.com
  # The proxies in front of the gateways that may name the client address (X-Forwarded-For), which the
  # per-address limits rely on: one hop, the ingress controller. Set it to your ingress's hops or
  # addresses; with none ("none"), clients must reach the gateways directly.
  EARSHOT_TRUST_PROXY: "1"
  # <NAME>_GRPC_ADDR for every service with a gRPC API (its Service name and port): the edge dials these.
${ds
  .filter((d) => d.callable)
  .map((d) => `  ${grpcAddrVar(d.name)}: ${d.name}:${d.port}\n`)
  .join("")}`;

const byOwner = (settings: readonly DeclaredSetting[]): Array<[string, DeclaredSetting[]]> => {
  const groups = new Map<string, DeclaredSetting[]>();
  for (const s of settings) groups.set(s.owner, [...(groups.get(s.owner) ?? []), s]);
  return [...groups];
};

export const renderK8sSecret = (settings: readonly DeclaredSetting[]): string => `${header("its services' secrets follow their modules' settings.")}# EXAMPLE VALUES: REPLACE every REPLACE_ME before applying, or manage the \`earshot-secrets\` Secret with
# your secret store (sealed-secrets, external-secrets, ...) and drop this file from kustomization.yaml.
apiVersion: v1
kind: Secret
metadata:
  name: earshot-secrets
type: Opaque
stringData:
  # A replica set: the outbox writes in transactions.
  MONGO_URL: mongodb://earshot:REPLACE_ME@mongo-0.mongo,mongo-1.mongo,mongo-2.mongo/?replicaSet=rs0
  EARSHOT_SMTP_URL: smtps://earshot:REPLACE_ME@smtp.example.com:465
  # The gateways sign each call's caller with it, the services check it (openssl rand -hex 32).
  EARSHOT_CALLER_SIGNING_KEY: REPLACE_ME
  # The operator credential the CLI signs operator-only calls with (openssl rand -hex 32); without it
  # those calls are refused.
  # EARSHOT_OPERATOR_KEY: REPLACE_ME
${requiredSecrets(settings)
  .map((s) => `${commentLines(`${s.owner}: ${s.secret?.note ?? ""}`, "  ")}  ${s.name}: REPLACE_ME\n`)
  .join("")}${byOwner(optionalSecrets(settings))
  .map(([owner, secrets]) => `  # Secrets of ${owner}: uncomment those you use.\n${secrets.map((s) => `  # ${s.name}: REPLACE_ME\n`).join("")}`)
  .join("")}`;

export const renderK8sNamespace = (): string => `${header("the namespace of the base.")}apiVersion: v1
kind: Namespace
metadata:
  name: ${K8S_NAMESPACE}
  labels:
    # Restricted Pod Security: every Earshot pod already complies.
    pod-security.kubernetes.io/enforce: restricted
`;

export const renderK8sDefaultDeny = (): string => `${header("default deny for the namespace.")}# Every pod of the namespace, in and out; each deployable's own policy (in its file) opens what it needs.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
`;

export const renderK8sIngress = (ds: readonly Deployable[]): string => {
  const gateway = ds.find((d) => d.name === "gateway");
  const mcp = ds.find((d) => d.name === "mcp-gateway");
  if (!gateway || !mcp) throw new Error("the Ingress needs the gateway and mcp-gateway deployables");
  const path = (p: string, service: string, type = "Prefix") =>
    `          - path: ${p}\n            pathType: ${type}\n            backend: { service: { name: ${service}, port: { name: http } } }\n`;
  return `${header("the edge's public routes.")}# REPLACE the host (and EARSHOT_PUBLIC_URL in configmap.yaml) with yours; TLS from the earshot-tls Secret
# (or cert-manager: add its cluster-issuer annotation). /metrics and the per-service readiness are on the
# metrics port, which no Service exposes, so no path here reaches them.
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: earshot
spec:
  tls:
    - hosts: [earshot.example.com]
      secretName: earshot-tls
  rules:
    - host: earshot.example.com
      http:
        paths:
${path("/", gateway.name, "Exact")}${GATEWAY_ROUTES.map((p) => path(p, gateway.name)).join("")}---
# /mcp in an Ingress of its own for its annotation: the requests of one MCP session (its Mcp-Session-Id
# header) go to one mcp-gateway pod, so a resumed notification stream usually finds the pod that kept what
# it missed (ingress-nginx; REPLACE with your controller's equivalent, or drop it: sessions and
# subscriptions live in the store every pod reads). Requests without the header spread as usual.
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: earshot-mcp
  annotations:
    nginx.ingress.kubernetes.io/upstream-hash-by: "$http_mcp_session_id"
spec:
  tls:
    - hosts: [earshot.example.com]
      secretName: earshot-tls
  rules:
    - host: earshot.example.com
      http:
        paths:
${path("/mcp", mcp.name)}`;
};

/** The gateway's public path prefixes besides the home page `/` (exact); `/mcp` goes to the mcp-gateway. */
export const GATEWAY_ROUTES = ["/api/v1", "/docs", "/.well-known", "/oauth", "/invitations", "/integrations", "/p/"];
