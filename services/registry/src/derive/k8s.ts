import type { DeclaredSetting } from "@earshot/platform";
import { grpcAddrVar } from "../names";
import type { Deployable } from "../services";
import { commentLines, optionalSecrets, requiredSecrets } from "./settings";

// The kustomize base in deploy/k8s, derived from the registry's deployables and, for the example Secret,
// from the secret settings the services' modules declare.

export const K8S_DIR = "deploy/k8s";
/** The metrics port of the HTTP edge (EARSHOT_METRICS_PORT); never part of a Service. */
export const K8S_METRICS_PORT = 9464;

const header = (what: string) => `# Derived from services/registry (npm run sync-services); ${what}\n`;

const edgeOnly = (d: Deployable, text: string) => (d.protocol === "http" ? text : "");

export const renderK8sDeployable = (d: Deployable): string => `${header("edit the registry, not this file.")}apiVersion: apps/v1
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
${edgeOnly(
  d,
  `      # Metrics are served on their own port, never on the public one.
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "${K8S_METRICS_PORT}"
        prometheus.io/path: /metrics
`,
)}    spec:
      # SIGTERM drains within 10 s.
      terminationGracePeriodSeconds: 15
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile: { type: RuntimeDefault }
      containers:
        - name: ${d.name}
          image: earshot
          args: ["${d.name}"]
          ports:
            - { name: ${d.protocol}, containerPort: ${d.port} }
${edgeOnly(d, `            - { name: metrics, containerPort: ${K8S_METRICS_PORT} }\n`)}          env:
${
  d.protocol === "grpc"
    ? `            - { name: GRPC_HOST, value: "0.0.0.0" }
            - { name: GRPC_PORT, value: "${d.port}" }
            - { name: KAFKA_CLIENT_ID, value: earshot-${d.name} }
`
    : `            - { name: HOST, value: "0.0.0.0" }
            - { name: PORT, value: "${d.port}" }
            - { name: EARSHOT_METRICS_PORT, value: "${K8S_METRICS_PORT}" }
            - { name: KAFKA_CLIENT_ID, value: earshot-${d.name} }
            - { name: EARSHOT_OAUTH_KEYS_FILE, value: /etc/earshot/oauth/oauth-signing-keys.json }
`
}          envFrom:
            - configMapRef: { name: earshot-config }
            - secretRef: { name: earshot-secrets }
${
  d.protocol === "grpc"
    ? `          # Native gRPC probes against grpc.health.v1.Health.
          readinessProbe:
            grpc: { port: ${d.port} }
            periodSeconds: 5
          livenessProbe:
            grpc: { port: ${d.port} }
            periodSeconds: 10
            failureThreshold: 3
`
    : `          readinessProbe:
            httpGet: { path: /readyz, port: http }
            periodSeconds: 5
          livenessProbe:
            httpGet: { path: /healthz, port: http }
            periodSeconds: 10
            failureThreshold: 3
`
}          resources:
            requests: { cpu: ${d.resources.requests.cpu}, memory: ${d.resources.requests.memory} }
            limits: { memory: ${d.resources.limits.memory} }
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: { drop: ["ALL"] }
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
            # EARSHOT_DATA_DIR: mail is written there as .eml files when EARSHOT_SMTP_URL is unset.
            - { name: data, mountPath: /data }
${edgeOnly(d, `            - { name: oauth-keys, mountPath: /etc/earshot/oauth, readOnly: true }\n`)}      volumes:
        - { name: tmp, emptyDir: {} }
        - { name: data, emptyDir: {} }
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
    : `    - { name: http, port: 80, targetPort: http }`
}
`;

export const renderKustomization = (ds: readonly Deployable[]): string => `${header("the resources follow the registry.")}apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
# Plain manifests for the production shape: MongoDB (replica set) and Kafka run elsewhere; set their
# addresses in configmap.yaml and secret.yaml. Every service runs from the one image.
labels:
  - pairs:
      app.kubernetes.io/part-of: earshot
    includeSelectors: false
resources:
  - configmap.yaml
  - secret.yaml
${ds.map((d) => `  - ${d.name}.yaml\n`).join("")}images:
  - name: earshot
    newName: earshot
    newTag: latest
`;

export const renderK8sConfigMap = (ds: readonly Deployable[]): string => `${header("its <NAME>_GRPC_ADDR lines follow the registry.")}# Settings every service reads (see services/platform/src/config.ts). REPLACE KAFKA_BROKERS and
# EARSHOT_PUBLIC_URL with yours; secrets (MONGO_URL, EARSHOT_SMTP_URL) live in secret.yaml.
apiVersion: v1
kind: ConfigMap
metadata:
  name: earshot-config
data:
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
${requiredSecrets(settings)
  .map((s) => `${commentLines(`${s.owner}: ${s.secret?.note ?? ""}`, "  ")}  ${s.name}: REPLACE_ME\n`)
  .join("")}${byOwner(optionalSecrets(settings))
  .map(([owner, secrets]) => `  # Secrets of ${owner}: uncomment those you use.\n${secrets.map((s) => `  # ${s.name}: REPLACE_ME\n`).join("")}`)
  .join("")}`;
