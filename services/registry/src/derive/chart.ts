import { camelName, grpcAddrVar } from "../names";
import type { Deployable } from "../services";

// The per-service parts of charts/earshot, derived from the registry's deployables: one thin template
// per deployable, its values block and schema entry, and the <NAME>_GRPC_ADDR lines of the ConfigMap.
// The shared templates (_helpers.tpl, secret.yaml) stay by hand.

export const CHART_DIR = "charts/earshot";

const tplHeader = "{{- /* Derived from services/registry (npm run sync-services); edit the registry, not this file. */}}\n";
const yamlHeader = (what: string) => `# Derived from services/registry (npm run sync-services); ${what}\n`;

export const renderChartTemplate = (d: Deployable): string => {
  const key = camelName(d.name);
  return `${tplHeader}{{- if .Values.${key}.enabled }}
{{ include "earshot.service" (dict "root" $ "name" "${d.name}" "values" .Values.${key} "protocol" "${d.protocol}") }}
{{- end }}
`;
};

export const renderChartConfigMap = (ds: readonly Deployable[]): string => `${tplHeader}apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "earshot.configMapName" . }}
  labels:
    app.kubernetes.io/part-of: earshot
    app.kubernetes.io/instance: {{ .Release.Name }}
    app.kubernetes.io/managed-by: {{ .Release.Service }}
data:
  LOG_LEVEL: {{ .Values.global.logLevel | quote }}
  KAFKA_BROKERS: {{ include "earshot.kafkaBrokers" . | quote }}
  MONGO_DB_PREFIX: {{ .Values.global.mongoDbPrefix | quote }}
  EARSHOT_MAIL_FROM: {{ .Values.global.mailFrom | quote }}
  {{- with .Values.global.publicUrl }}
  EARSHOT_PUBLIC_URL: {{ . | quote }}
  {{- end }}
  EARSHOT_TRUST_PROXY: {{ .Values.global.trustProxy | quote }}
  # <NAME>_GRPC_ADDR for every gRPC service: the edge (and services calling each other) dial these.
${ds
  .filter((d) => d.protocol === "grpc")
  .map((d) => `  ${grpcAddrVar(d.name)}: {{ printf "${d.name}:%v" .Values.${camelName(d.name)}.port | quote }}\n`)
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

export const renderValues = (ds: readonly Deployable[]): string => `${yamlHeader("a block per deployable, defaults from the registry.")}image:
  repository: earshot
  tag: latest
  pullPolicy: IfNotPresent

global:
  # MongoDB connection string (a replica set: outbox writes use transactions). Ignored when existingSecret is set.
  mongoUrl: ""
  # A Secret holding MONGO_URL, EARSHOT_ENCRYPTION_KEY (and optionally EARSHOT_SMTP_URL and the provider
  # credentials) instead of the values here.
  existingSecret: ""
  # EARSHOT_ENCRYPTION_KEY: 32 random bytes as 64 hex digits (openssl rand -hex 32), encrypting stored provider
  # tokens. Required unless existingSecret is set; keep it: tokens sealed with a lost key must be authorized again.
  encryptionKey: ""
  # Provider credentials by setting name (README "Sources"); platforms left empty are not polled. E.g.
  # EARSHOT_X_BEARER_TOKEN, EARSHOT_REDDIT_CLIENT_ID, EARSHOT_REDDIT_CLIENT_SECRET, EARSHOT_YOUTUBE_API_KEY,
  # EARSHOT_LINKEDIN_CLIENT_ID, EARSHOT_LINKEDIN_CLIENT_SECRET.
  providers: {}
  # Kafka brokers: "kafka-0:9092,kafka-1:9092" or a list. Required.
  # With --set, escape commas ('kafka-0:9092\\,kafka-1:9092') or pass a list ('{kafka-0:9092,kafka-1:9092}').
  kafkaBrokers: ""
  mongoDbPrefix: earshot
  logLevel: info
  smtpUrl: ""
  mailFrom: "Earshot <no-reply@earshot.local>"
  # The origin clients use (links in invitation emails, the OpenAPI server URL, the OAuth issuer).
  publicUrl: ""
  # EARSHOT_TRUST_PROXY: the proxies in front of the gateways allowed to name the client address
  # (X-Forwarded-For), which per-address limits rely on. "1" = one hop (the ingress controller); a
  # comma-separated list of addresses/subnets also works; "none" if clients reach the gateways directly.
  trustProxy: "1"
  # EARSHOT_METRICS_PORT of the gateways: /metrics and per-service /readyz, scraped through the pod's
  # prometheus.io annotations; not part of any Service.
  metricsPort: 9464
  # A Secret with the key "oauth-signing-keys.json" (make one with deploy/generate-oauth-keys.js).
  oauthSigningKeysSecret: earshot-oauth-keys
${ds.map((d) => `\n${block(d)}`).join("")}`;

const resources = {
  type: "object",
  additionalProperties: false,
  properties: {
    requests: {
      type: "object",
      additionalProperties: false,
      properties: { cpu: { type: ["string", "number"] }, memory: { type: "string" } },
    },
    limits: {
      type: "object",
      additionalProperties: false,
      properties: { cpu: { type: ["string", "number"] }, memory: { type: "string" } },
    },
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
      properties: { enabled: { type: "boolean" }, minAvailable: { type: ["integer", "string"] } },
    },
  },
};

const image = {
  type: "object",
  additionalProperties: false,
  required: ["repository", "tag"],
  properties: {
    repository: { type: "string", minLength: 1 },
    tag: { type: "string", minLength: 1 },
    pullPolicy: { enum: ["Always", "IfNotPresent", "Never"] },
  },
};

const global = {
  type: "object",
  additionalProperties: false,
  properties: {
    mongoUrl: { type: "string" },
    existingSecret: { type: "string" },
    encryptionKey: { type: "string", description: "EARSHOT_ENCRYPTION_KEY: 64 hex digits." },
    providers: {
      type: "object",
      description: "Provider credentials by setting name.",
      propertyNames: {
        enum: ["EARSHOT_X_BEARER_TOKEN", "EARSHOT_REDDIT_CLIENT_ID", "EARSHOT_REDDIT_CLIENT_SECRET", "EARSHOT_REDDIT_USER_AGENT", "EARSHOT_YOUTUBE_API_KEY", "EARSHOT_LINKEDIN_CLIENT_ID", "EARSHOT_LINKEDIN_CLIENT_SECRET"],
      },
      additionalProperties: { type: "string" },
    },
    kafkaBrokers: {
      description: "KAFKA_BROKERS: host:port, comma-separated, or a list of them.",
      anyOf: [{ type: "string" }, { type: "array", minItems: 1, items: { type: "string", minLength: 1 } }],
    },
    mongoDbPrefix: { type: "string", pattern: "^[A-Za-z0-9_]+$" },
    logLevel: { enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] },
    smtpUrl: { type: "string" },
    mailFrom: { type: "string" },
    publicUrl: { type: "string" },
    trustProxy: { type: "string", minLength: 1 },
    metricsPort: { type: "integer", minimum: 1, maximum: 65535 },
    oauthSigningKeysSecret: { type: "string", minLength: 1 },
  },
};

export const renderValuesSchema = (ds: readonly Deployable[]): string =>
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
        global,
        ...Object.fromEntries(ds.map((d) => [camelName(d.name), { $ref: "#/definitions/component" }])),
      },
    },
    null,
    2,
  )}\n`;
