import type { DeclaredSetting } from "@earshot/platform";
import { camelName, grpcAddrVar, settingValuesKey } from "../names";
import type { Deployable } from "../services";
import { commentLines, optionalSecrets, plainSettings, requiredSecrets } from "./settings";

// The per-service parts of charts/earshot, derived from the registry's deployables and the settings the
// services' modules declare: one thin template per deployable, its values block and schema entry, the
// <NAME>_GRPC_ADDR lines of the ConfigMap, and the services' settings in the values, the schema, the
// ConfigMap and the Secret. The shared templates (_helpers.tpl) stay by hand.

export const CHART_DIR = "charts/earshot";

const tplHeader = "{{- /* Derived from services/registry (npm run sync-services); edit the registry, not this file. */}}\n";
const yamlHeader = (what: string) => `# Derived from services/registry (npm run sync-services); ${what}\n`;

/** A Helm list literal of the callable services a deployable dials, each with its name and port. */
const callsList = (d: Deployable): string =>
  `(list${d.calls.map((c) => ` (dict "name" "${c}" "port" .Values.${camelName(c)}.port)`).join("")})`;

export const renderChartTemplate = (d: Deployable): string => {
  const key = camelName(d.name);
  const context = `"root" $ "name" "${d.name}" "values" .Values.${key} "protocol" "${d.protocol}"`;
  return `${tplHeader}{{- if .Values.${key}.enabled }}
{{ include "earshot.service" (dict ${context}) }}
{{- if .Values.networkPolicy.enabled }}
---
{{ include "earshot.networkPolicy" (dict ${context} "callers" (list${d.callers.map((c) => ` "${c}"`).join("")}) "calls" ${callsList(d)} "internet" ${d.internet}) }}
{{- end }}
{{- end }}
`;
};

export const renderChartConfigMap = (ds: readonly Deployable[]): string => `${tplHeader}apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "earshot.configMapName" . }}
  labels:
    {{- include "earshot.releaseLabels" . | nindent 4 }}
data:
  # In a cluster every process refuses to start without MongoDB, Kafka and the caller signing key.
  EARSHOT_MODE: cluster
  LOG_LEVEL: {{ .Values.global.logLevel | quote }}
  KAFKA_BROKERS: {{ include "earshot.kafkaBrokers" . | quote }}
  MONGO_DB_PREFIX: {{ .Values.global.mongoDbPrefix | quote }}
  EARSHOT_MAIL_FROM: {{ .Values.global.mailFrom | quote }}
  {{- with include "earshot.publicUrl" . }}
  EARSHOT_PUBLIC_URL: {{ . | quote }}
  {{- end }}
  EARSHOT_TRUST_PROXY: {{ .Values.global.trustProxy | quote }}
  {{- range $name, $value := .Values.global.settings }}
  {{ $name }}: {{ $value | quote }}
  {{- end }}
  # <NAME>_GRPC_ADDR for every service with a gRPC API (its Service, named after the release): the edge
  # (and services calling each other) dial these.
${ds
  .filter((d) => d.callable)
  .map((d) => `  ${grpcAddrVar(d.name)}: {{ printf "%s-${d.name}:%v" .Release.Name .Values.${camelName(d.name)}.port | quote }}\n`)
  .join("")}`;

const block = (d: Deployable): string => `${camelName(d.name)}:
  enabled: true
  replicaCount: ${d.replicaCount}
  port: ${d.port}
  resources:
    requests: { cpu: ${d.resources.requests.cpu}, memory: ${d.resources.requests.memory} }
    limits: { memory: ${d.resources.limits.memory} }
  autoscaling:
    enabled: ${d.autoscaling.enabled}
    minReplicas: ${d.autoscaling.minReplicas}
    maxReplicas: ${d.autoscaling.maxReplicas}
    targetCPUUtilizationPercentage: ${d.autoscaling.targetCPUUtilizationPercentage}
  podDisruptionBudget:
    enabled: ${d.podDisruptionBudget.enabled}
    minAvailable: ${d.podDisruptionBudget.minAvailable}
`;

const names = (settings: readonly DeclaredSetting[]) => settings.map((s) => s.name).join(", ");

const requiredSecretValues = (settings: readonly DeclaredSetting[]): string =>
  requiredSecrets(settings)
    .map((s) => `${commentLines(`${s.name} (${s.owner}): ${s.secret?.note ?? ""} Required unless existingSecret is set.`, "  ")}  ${settingValuesKey(s.name)}: ""\n`)
    .join("");

export const renderValues = (ds: readonly Deployable[], settings: readonly DeclaredSetting[]): string => `${yamlHeader("a block per deployable, defaults from the registry.")}image:
  repository: earshot
  # Empty: the chart's appVersion. A digest (sha256:...), when given, is used instead of the tag.
  tag: ""
  digest: ""
  pullPolicy: IfNotPresent
imagePullSecrets: []

# Every pod runs as this non-root user and group (fsGroup too); the image's files are world-readable.
podSecurityContext:
  runAsUser: 10001
  runAsGroup: 10001
# Seconds a terminating pod keeps serving before its SIGTERM drain, so a rolling update drops no request.
preStopSleepSeconds: 5
nodeSelector: {}
tolerations: []
affinity: {}
# Empty: each deployable's replicas spread over nodes (kubernetes.io/hostname, ScheduleAnyway).
topologySpreadConstraints: []
podAnnotations: {}
# Extra environment of every container (a list of EnvVar), after the chart's own.
extraEnv: []

# Two Ingresses on the same hosts: REST, the docs, OAuth and the browser pages (gateway), and /mcp
# (mcp-gateway), which has annotations of its own. /metrics and the per-service readiness are served on the
# metrics port, which no Service or Ingress exposes.
ingress:
  enabled: true
  className: ""
  # Both Ingresses'; for example cert-manager.io/cluster-issuer: letsencrypt
  annotations: {}
  # The /mcp Ingress's besides those: requests of one MCP session (the Mcp-Session-Id header) go to one
  # mcp-gateway pod, so a resumed notification stream usually finds the pod that kept what it missed
  # (ingress-nginx; set your controller's equivalent, or {} for none: sessions and subscriptions live in
  # the store every pod reads, so any pod still serves them). Requests without the header spread as usual.
  mcpAnnotations:
    nginx.ingress.kubernetes.io/upstream-hash-by: "$http_mcp_session_id"
  # The public host names; the first one gives EARSHOT_PUBLIC_URL unless global.publicUrl is set.
  hosts: []
  # [{ secretName: earshot-tls, hosts: [earshot.example.com] }]: a provided Secret, or one cert-manager fills.
  tls: []

# Default deny for every Earshot pod, then: gateways from the ingress controller's namespace; each gRPC
# service only from the deployables that call it; egress to DNS, the datastore ports and, for integration
# and delivery, the internet on 443 outside the private ranges.
networkPolicy:
  enabled: true
  ingressNamespaceLabels:
    kubernetes.io/metadata.name: ingress-nginx
  # Who may scrape the metrics port of every deployable (never routed through a Service or the Ingress):
  # the scraper's namespace labels (by default the monitoring namespace, as in the kustomize base) and/or
  # its pod labels (e.g. app.kubernetes.io/name: prometheus; alone: pods of the release's namespace).
  # None at all: set both to null (an empty map would merge with this default).
  metricsNamespaceLabels:
    kubernetes.io/metadata.name: monitoring
  metricsPodLabels: {}
  # NetworkPolicyPeers of MongoDB, Kafka and SMTP (empty: any address, on egressPorts only).
  datastores: []
  # MongoDB, Kafka (plain and TLS), SMTP.
  egressPorts: [27017, 9092, 9093, 25, 465, 587]

# A prometheus-operator PodMonitor scraping /metrics from the container port named "metrics" of every pod of
# the release that has one (the gateways' global.metricsPort). Needs the operator's CRDs; also set
# networkPolicy.metricsNamespaceLabels to Prometheus's namespace (monitoring by default) so the policies let it in.
metrics:
  podMonitor:
    enabled: false
    # Labels Prometheus's podMonitorSelector looks for (e.g. release: kube-prometheus-stack).
    labels: {}
    interval: 30s
    scrapeTimeout: 10s

# Mutual TLS between Earshot's processes (EARSHOT_GRPC_TLS_*): every gRPC server requires a client certificate
# the CA signed, and every client (the gateways', the services' of one another, the CLI in a pod) presents
# one. The probes are plain HTTP on the metrics port, so they need none. The setup Job makes no gRPC call.
grpcTls:
  enabled: false
  # A Secret with ca.crt, tls.crt and tls.key (as cert-manager writes them), mounted read-only in every
  # deployable. Empty with certManager.issuerRef: <release>-earshot-grpc-tls, which the Certificate fills.
  secretName: ""
  # EARSHOT_GRPC_TLS_SERVER_NAME: the name to check on the servers' certificates instead of the Service
  # dialled (the Certificate below is valid for every one, so it may stay empty).
  serverName: ""
  certManager:
    # { name, kind, group } of a cert-manager CA issuer (one that writes ca.crt): a Certificate for every
    # gRPC service's in-cluster names is then rendered into secretName. Empty: bring the Secret yourself.
    issuerRef: {}

# The pre-install/pre-upgrade Job running "earshot setup": every service's MongoDB indexes and every Kafka
# topic the services declare (and its .dlq), created before any replica starts; existing ones are kept.
setup:
  enabled: true
  kafka:
    # Partitions of each topic created (the unit of parallelism per consumer group); never lowered.
    partitions: 6
    # Replicas of each topic created: 3 on a cluster of three brokers or more, 1 on a single broker.
    replicationFactor: 3
  # Seconds the Job may run before it fails the install (it retries the datastores meanwhile).
  activeDeadlineSeconds: 300
  resources:
    requests: { cpu: 50m, memory: 128Mi }
    limits: { cpu: 500m, memory: 256Mi }

global:
  # MongoDB connection string (a replica set: outbox writes use transactions). Ignored when existingSecret is set.
  mongoUrl: ""
${commentLines(`A Secret holding MONGO_URL, EARSHOT_CALLER_SIGNING_KEY, ${requiredSecrets(settings).map((s) => `${s.name}, `).join("")}and optionally EARSHOT_SMTP_URL, EARSHOT_OPERATOR_KEY and the services' other secret settings, instead of the values here.`, "  ")}  existingSecret: ""
${requiredSecretValues(settings)}${commentLines(`The services' other secret settings, by name, into the Secret; those left empty are left out: ${names(optionalSecrets(settings))}.`, "  ")}  secrets: {}
${commentLines(`The services' other settings, by name, into the ConfigMap; each has its default otherwise: ${names(plainSettings(settings))}.`, "  ")}  settings: {}
  # Kafka brokers: "kafka-0:9092,kafka-1:9092" or a list. Required.
  # With --set, escape commas ('kafka-0:9092\\,kafka-1:9092') or pass a list ('{kafka-0:9092,kafka-1:9092}').
  kafkaBrokers: ""
  mongoDbPrefix: earshot
  logLevel: info
  smtpUrl: ""
  mailFrom: "Earshot <no-reply@earshot.local>"
  # The origin clients use (links in invitation emails, the OpenAPI server URL, the OAuth issuer);
  # empty: from the first ingress host.
  publicUrl: ""
  # EARSHOT_CALLER_SIGNING_KEY: the HMAC key the gateways sign each call's caller with and the services check
  # (openssl rand -hex 32). Required unless existingSecret is set.
  callerSigningKey: ""
  # EARSHOT_OPERATOR_KEY: the operator credential the CLI signs operator-only calls with (minting API keys
  # for others); empty: such calls are refused.
  operatorKey: ""
  # EARSHOT_TRUST_PROXY: the proxies in front of the gateways allowed to name the client address
  # (X-Forwarded-For), which per-address limits rely on. "1" = one hop (the ingress controller); a
  # comma-separated list of addresses/subnets also works; "none" if clients reach the gateways directly.
  trustProxy: "1"
  # EARSHOT_METRICS_PORT of every deployable, the container port named "metrics": /metrics (per-RPC counts
  # and latencies on the gRPC services, per-route on the gateways, process metrics everywhere; the gateways
  # also answer per-service /readyz there). Announced by prometheus.io annotations; not part of any Service.
  metricsPort: 9464
  # A Secret with the key "oauth-signing-keys.json" (make one with deploy/generate-oauth-keys.js).
  oauthSigningKeysSecret: earshot-oauth-keys
${ds.map((d) => `\n${block(d)}`).join("")}`;

/** A Kubernetes CPU quantity ("100m", "0.5", 1) and memory quantity ("128Mi", "1G"). */
const cpu = { anyOf: [{ type: "number", exclusiveMinimum: 0 }, { type: "string", pattern: "^[0-9]+(\\.[0-9]+)?m?$" }] };
const memory = { type: "string", pattern: "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$" };

const resources = {
  type: "object",
  additionalProperties: false,
  properties: {
    requests: { type: "object", additionalProperties: false, properties: { cpu, memory } },
    // limits.cpu is off by default (throttling a Node process stalls its event loop); set one to cap it.
    limits: { type: "object", additionalProperties: false, properties: { cpu, memory } },
  },
};

const component = {
  type: "object",
  additionalProperties: false,
  required: ["enabled", "replicaCount", "port", "resources", "autoscaling", "podDisruptionBudget"],
  properties: {
    enabled: { type: "boolean" },
    replicaCount: { type: "integer", minimum: 0 },
    port: { type: "integer", minimum: 1, maximum: 65535 },
    resources: { $ref: "#/definitions/resources" },
    autoscaling: {
      type: "object",
      additionalProperties: false,
      required: ["enabled", "minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"],
      properties: {
        enabled: { type: "boolean" },
        minReplicas: { type: "integer", minimum: 1 },
        maxReplicas: { type: "integer", minimum: 1 },
        targetCPUUtilizationPercentage: { type: "integer", minimum: 1, maximum: 100 },
      },
    },
    podDisruptionBudget: {
      type: "object",
      additionalProperties: false,
      required: ["enabled", "minAvailable"],
      properties: {
        enabled: { type: "boolean" },
        minAvailable: { anyOf: [{ type: "integer", minimum: 0 }, { type: "string", pattern: "^(100|[1-9]?[0-9])%$" }] },
      },
    },
  },
};

const image = {
  type: "object",
  additionalProperties: false,
  required: ["repository", "pullPolicy"],
  properties: {
    repository: { type: "string", minLength: 1 },
    tag: { type: "string", not: { const: "latest" }, description: "Empty: the chart's appVersion. Never latest." },
    digest: { type: "string", pattern: "^(sha256:[a-f0-9]{64})?$" },
    pullPolicy: { enum: ["Always", "IfNotPresent", "Never"] },
  },
};

const hostPort = "[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?:[0-9]{1,5}";
/** A Kubernetes object name (RFC 1123 subdomain) and a DNS name. */
const objectName = "[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?";
const dnsName = "[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?";
const labels = { type: "object", additionalProperties: { type: "string" } };
const objectList = { type: "array", items: { type: "object" } };
/** A Prometheus duration: 30s, 1m, 1h30m. */
const duration = "^([0-9]+(ms|s|m|h|d|w|y))+$";

/** The chart's top-level settings besides the image, the global block and the deployables. */
const podOptions = {
  imagePullSecrets: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 } } } },
  podSecurityContext: {
    type: "object",
    additionalProperties: false,
    required: ["runAsUser", "runAsGroup"],
    properties: { runAsUser: { type: "integer", minimum: 10001 }, runAsGroup: { type: "integer", minimum: 10001 } },
  },
  preStopSleepSeconds: { type: "integer", minimum: 0, maximum: 60 },
  nodeSelector: labels,
  tolerations: objectList,
  affinity: { type: "object" },
  topologySpreadConstraints: objectList,
  podAnnotations: labels,
  extraEnv: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" } } } },
  ingress: {
    type: "object",
    additionalProperties: false,
    required: ["enabled"],
    properties: {
      enabled: { type: "boolean" },
      className: { type: "string" },
      annotations: labels,
      mcpAnnotations: labels,
      hosts: { type: "array", items: { type: "string", pattern: "^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$" } },
      tls: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["secretName"],
          properties: { secretName: { type: "string", minLength: 1 }, hosts: { type: "array", items: { type: "string" } } },
        },
      },
    },
  },
  networkPolicy: {
    type: "object",
    additionalProperties: false,
    required: ["enabled", "ingressNamespaceLabels"],
    properties: {
      enabled: { type: "boolean" },
      ingressNamespaceLabels: { ...labels, minProperties: 1 },
      metricsNamespaceLabels: labels,
      metricsPodLabels: labels,
      datastores: objectList,
      egressPorts: { type: "array", items: { type: "integer", minimum: 1, maximum: 65535 } },
    },
  },
  metrics: {
    type: "object",
    additionalProperties: false,
    properties: {
      podMonitor: {
        type: "object",
        additionalProperties: false,
        required: ["enabled"],
        properties: {
          enabled: { type: "boolean" },
          labels,
          interval: { type: "string", pattern: duration },
          scrapeTimeout: { type: "string", pattern: duration },
        },
      },
    },
  },
  grpcTls: {
    type: "object",
    additionalProperties: false,
    required: ["enabled"],
    properties: {
      enabled: { type: "boolean" },
      secretName: { type: "string", pattern: `^(${objectName})?$`, description: "A Secret with ca.crt, tls.crt and tls.key." },
      serverName: { type: "string", pattern: `^(${dnsName})?$`, description: "EARSHOT_GRPC_TLS_SERVER_NAME." },
      certManager: {
        type: "object",
        additionalProperties: false,
        properties: {
          issuerRef: {
            type: "object",
            additionalProperties: false,
            properties: { name: { type: "string", minLength: 1 }, kind: { type: "string", minLength: 1 }, group: { type: "string", minLength: 1 } },
            // Empty (no Certificate), or naming the issuer.
            dependencies: { kind: ["name"], group: ["name"] },
          },
        },
      },
    },
  },
  setup: {
    type: "object",
    additionalProperties: false,
    required: ["enabled", "kafka"],
    properties: {
      enabled: { type: "boolean" },
      kafka: {
        type: "object",
        additionalProperties: false,
        required: ["partitions", "replicationFactor"],
        properties: {
          partitions: { type: "integer", minimum: 1, maximum: 10000 },
          replicationFactor: { type: "integer", minimum: 1, maximum: 32767 },
        },
      },
      activeDeadlineSeconds: { type: "integer", minimum: 30 },
      resources: { $ref: "#/definitions/resources" },
    },
  },
};

/** A map of settings by name: only the declared names, each with a value of the given types. */
const settingsMap = (description: string, settings: readonly DeclaredSetting[], type: string | string[]) => ({
  type: "object",
  description,
  additionalProperties: false,
  properties: Object.fromEntries(settings.map((s) => [s.name, { type, description: `Declared by ${s.owner}.` }])),
});

// A parent chart may pass keys of its own under global: only Earshot's own are checked.
const global = (settings: readonly DeclaredSetting[]) => ({
  type: "object",
  properties: {
    mongoUrl: { type: "string", pattern: "^(mongodb(\\+srv)?://[^/\\s]+(/[^\\s]*)?)?$", description: "mongodb:// or mongodb+srv:// connection string." },
    callerSigningKey: { type: "string", pattern: "^([A-Za-z0-9+/=_-]{32,})?$", description: "EARSHOT_CALLER_SIGNING_KEY: at least 32 characters." },
    operatorKey: { type: "string", pattern: "^([A-Za-z0-9+/=_-]{32,})?$", description: "EARSHOT_OPERATOR_KEY: at least 32 characters." },
    existingSecret: { type: "string" },
    ...Object.fromEntries(requiredSecrets(settings).map((s) => [settingValuesKey(s.name), { type: "string", description: `${s.name} (${s.owner}): ${s.secret?.note ?? ""}`.trim() }])),
    secrets: settingsMap("The services' other secret settings, by name, into the Secret.", optionalSecrets(settings), "string"),
    settings: settingsMap("The services' other settings, by name, into the ConfigMap.", plainSettings(settings), ["string", "number", "boolean"]),
    kafkaBrokers: {
      description: "KAFKA_BROKERS: host:port, comma-separated, or a list of them.",
      anyOf: [
        { type: "string", pattern: `^(${hostPort}(,${hostPort})*)?$` },
        { type: "array", minItems: 1, items: { type: "string", pattern: `^${hostPort}$` } },
      ],
    },
    mongoDbPrefix: { type: "string", pattern: "^[A-Za-z0-9_]+$" },
    logLevel: { enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] },
    smtpUrl: { type: "string" },
    mailFrom: { type: "string" },
    // An http(s) origin, optionally with a path (empty: from the Ingress's first host): what EARSHOT_PUBLIC_URL takes.
    publicUrl: { type: "string", pattern: "^(https?://[^\\s/?#]+(/[^\\s?#]*)?)?$" },
    trustProxy: { type: "string", minLength: 1 },
    metricsPort: { type: "integer", minimum: 1, maximum: 65535 },
    oauthSigningKeysSecret: { type: "string", minLength: 1 },
  },
});

export const renderValuesSchema = (ds: readonly Deployable[], settings: readonly DeclaredSetting[]): string =>
  `${JSON.stringify(
    {
      $schema: "http://json-schema.org/draft-07/schema#",
      title: "Earshot chart values",
      $comment: "Derived from services/registry (npm run sync-services): a component per deployable.",
      type: "object",
      additionalProperties: false,
      required: ["image", "global", ...ds.map((d) => camelName(d.name))],
      definitions: { resources, component },
      properties: {
        image,
        ...podOptions,
        global: global(settings),
        ...Object.fromEntries(ds.map((d) => [camelName(d.name), { $ref: "#/definitions/component" }])),
      },
    },
    null,
    2,
  )}\n`;

/**
 * The cert-manager Certificate of mutual TLS (grpcTls with certManager.issuerRef): one certificate every
 * process presents, as server and as client, valid for every gRPC service's in-cluster names.
 */
export const renderChartGrpcCertificate = (ds: readonly Deployable[]): string => `${tplHeader}{{- if and .Values.grpcTls.enabled (dig "certManager" "issuerRef" "name" "" .Values.grpcTls) }}
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ printf "%s-earshot-grpc-tls" .Release.Name }}
  labels:
    {{- include "earshot.releaseLabels" . | nindent 4 }}
spec:
  secretName: {{ include "earshot.grpcTlsSecretName" . }}
  issuerRef:
    {{- toYaml .Values.grpcTls.certManager.issuerRef | nindent 4 }}
  # Presented by every server and by every client of another process.
  usages: [server auth, client auth, digital signature, key encipherment]
  # Every gRPC service's Service, as dialled (<release>-<service>) and fully qualified.
  dnsNames:
${ds
  .filter((d) => d.protocol === "grpc")
  .map((d) => `    {{- include "earshot.grpcDnsNames" (dict "root" $ "name" "${d.name}") | nindent 4 }}
`)
  .join("")}{{- end }}
`;

/** The chart's Secret: the shared secrets, each one a deployment must set, and the other ones given. */
export const renderChartSecret = (settings: readonly DeclaredSetting[]): string => `${tplHeader}{{- if not .Values.global.existingSecret }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "earshot.secretName" . }}
  labels:
    {{- include "earshot.releaseLabels" . | nindent 4 }}
type: Opaque
stringData:
  MONGO_URL: {{ required "global.mongoUrl (or global.existingSecret) is required" .Values.global.mongoUrl | quote }}
  EARSHOT_CALLER_SIGNING_KEY: {{ required "global.callerSigningKey (or global.existingSecret) is required" .Values.global.callerSigningKey | quote }}
  {{- with .Values.global.operatorKey }}
  EARSHOT_OPERATOR_KEY: {{ . | quote }}
  {{- end }}
  {{- with .Values.global.smtpUrl }}
  EARSHOT_SMTP_URL: {{ . | quote }}
  {{- end }}
${requiredSecrets(settings)
  .map((s) => {
    const key = settingValuesKey(s.name);
    return `  ${s.name}: {{ required "global.${key} (or global.existingSecret) is required" .Values.global.${key} | quote }}\n`;
  })
  .join("")}  {{- range $name, $value := .Values.global.secrets }}
  {{- if $value }}
  {{ $name }}: {{ $value | quote }}
  {{- end }}
  {{- end }}
{{- end }}
`;
