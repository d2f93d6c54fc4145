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
  {{- range $name, $value := .Values.global.settings }}
  {{ $name }}: {{ $value | quote }}
  {{- end }}
  # <NAME>_GRPC_ADDR for every service with a gRPC API: the edge (and services calling each other) dial these.
${ds
  .filter((d) => d.callable)
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

const names = (settings: readonly DeclaredSetting[]) => settings.map((s) => s.name).join(", ");

const requiredSecretValues = (settings: readonly DeclaredSetting[]): string =>
  requiredSecrets(settings)
    .map((s) => `${commentLines(`${s.name} (${s.owner}): ${s.secret?.note ?? ""} Required unless existingSecret is set.`, "  ")}  ${settingValuesKey(s.name)}: ""\n`)
    .join("");

export const renderValues = (ds: readonly Deployable[], settings: readonly DeclaredSetting[]): string => `${yamlHeader("a block per deployable, defaults from the registry.")}image:
  repository: earshot
  tag: latest
  pullPolicy: IfNotPresent

global:
  # MongoDB connection string (a replica set: outbox writes use transactions). Ignored when existingSecret is set.
  mongoUrl: ""
${commentLines(`A Secret holding MONGO_URL, ${requiredSecrets(settings).map((s) => `${s.name}, `).join("")}and optionally EARSHOT_SMTP_URL and the services' other secret settings, instead of the values here.`, "  ")}  existingSecret: ""
${requiredSecretValues(settings)}${commentLines(`The services' other secret settings, by name, into the Secret; those left empty are left out: ${names(optionalSecrets(settings))}.`, "  ")}  secrets: {}
${commentLines(`The services' other settings, by name, into the ConfigMap; each has its default otherwise: ${names(plainSettings(settings))}.`, "  ")}  settings: {}
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

/** A map of settings by name: only the declared names, each with a value of the given types. */
const settingsMap = (description: string, settings: readonly DeclaredSetting[], type: string | string[]) => ({
  type: "object",
  description,
  additionalProperties: false,
  properties: Object.fromEntries(settings.map((s) => [s.name, { type, description: `Declared by ${s.owner}.` }])),
});

const global = (settings: readonly DeclaredSetting[]) => ({
  type: "object",
  additionalProperties: false,
  properties: {
    mongoUrl: { type: "string" },
    existingSecret: { type: "string" },
    ...Object.fromEntries(requiredSecrets(settings).map((s) => [settingValuesKey(s.name), { type: "string", description: `${s.name} (${s.owner}): ${s.secret?.note ?? ""}`.trim() }])),
    secrets: settingsMap("The services' other secret settings, by name, into the Secret.", optionalSecrets(settings), "string"),
    settings: settingsMap("The services' other settings, by name, into the ConfigMap.", plainSettings(settings), ["string", "number", "boolean"]),
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
        global: global(settings),
        ...Object.fromEntries(ds.map((d) => [camelName(d.name), { $ref: "#/definitions/component" }])),
      },
    },
    null,
    2,
  )}\n`;

/** The chart's Secret: the shared secrets, each one a deployment must set, and the other ones given. */
export const renderChartSecret = (settings: readonly DeclaredSetting[]): string => `${tplHeader}{{- if not .Values.global.existingSecret }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "earshot.secretName" . }}
  labels:
    app.kubernetes.io/part-of: earshot
    app.kubernetes.io/instance: {{ .Release.Name }}
    app.kubernetes.io/managed-by: {{ .Release.Service }}
type: Opaque
stringData:
  MONGO_URL: {{ required "global.mongoUrl (or global.existingSecret) is required" .Values.global.mongoUrl | quote }}
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
