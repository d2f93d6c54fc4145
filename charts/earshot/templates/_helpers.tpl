{{/*
Named templates shared by every Earshot service. Most take the "service context", a dict of
  root      the chart's root context ($)
  name      the deployable's name, as declared in its package.json (e.g. "mcp-gateway")
  values    its values block (e.g. .Values.mcpGateway)
  protocol  "grpc" or "http"
*/}}

{{/*
The name of a deployable's objects (Deployment, Service, ServiceAccount, ...) and its in-cluster host:
<release>-<deployable>, so two releases in one namespace never collide. Called with (dict "root" $ "name" "account").
*/}}
{{- define "earshot.fullname" -}}
{{- printf "%s-%s" .root.Release.Name .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels shared by every object of one service. */}}
{{- define "earshot.labels" -}}
{{ include "earshot.selector" . }}
app.kubernetes.io/part-of: earshot
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | quote }}
{{- end -}}

{{/* The labels that select one service's pods (never change them on upgrade). */}}
{{- define "earshot.selector" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* Labels of the release's shared objects (ConfigMap, Secret, Ingress, policies); called with $. */}}
{{- define "earshot.releaseLabels" -}}
app.kubernetes.io/part-of: earshot
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end -}}

{{/* Names of the ConfigMap and Secret every service reads its environment from (called with $). */}}
{{- define "earshot.configMapName" -}}
{{ .Release.Name }}-earshot
{{- end -}}

{{/* KAFKA_BROKERS: global.kafkaBrokers as a comma-separated string or a list of host:port. */}}
{{- define "earshot.kafkaBrokers" -}}
{{- $brokers := required "global.kafkaBrokers is required (host:port, comma-separated or a list)" .Values.global.kafkaBrokers -}}
{{- if kindIs "slice" $brokers -}}
{{ join "," $brokers }}
{{- else -}}
{{ $brokers }}
{{- end -}}
{{- end -}}

{{- define "earshot.secretName" -}}
{{- if .Values.global.existingSecret -}}
{{ .Values.global.existingSecret }}
{{- else -}}
{{ .Release.Name }}-earshot
{{- end -}}
{{- end -}}

{{/*
EARSHOT_PUBLIC_URL: global.publicUrl, else the first Ingress host (https when the Ingress has TLS).
Empty when neither is set: the gateways then derive it from each request.
*/}}
{{- define "earshot.publicUrl" -}}
{{- if .Values.global.publicUrl -}}
{{ .Values.global.publicUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts -}}
{{ printf "%s://%s" (ternary "https" "http" (gt (len .Values.ingress.tls) 0)) (first .Values.ingress.hosts) }}
{{- end -}}
{{- end -}}

{{/*
The Secret holding the mutual TLS files (ca.crt, tls.crt, tls.key): grpcTls.secretName, else the one the
cert-manager Certificate fills. Called with $.
*/}}
{{- define "earshot.grpcTlsSecretName" -}}
{{- if .Values.grpcTls.secretName -}}
{{ .Values.grpcTls.secretName }}
{{- else if dig "certManager" "issuerRef" "name" "" .Values.grpcTls -}}
{{ printf "%s-earshot-grpc-tls" .Release.Name }}
{{- else -}}
{{ fail "grpcTls.secretName (a Secret with ca.crt, tls.crt and tls.key) or grpcTls.certManager.issuerRef.name is required with grpcTls.enabled" }}
{{- end -}}
{{- end -}}

{{/* The names a gRPC service is dialled by in the cluster, a YAML list (dict "root" $ "name" "account"). */}}
{{- define "earshot.grpcDnsNames" -}}
{{- $name := include "earshot.fullname" . -}}
{{- $ns := .root.Release.Namespace -}}
- {{ $name }}
- {{ printf "%s.%s" $name $ns }}
- {{ printf "%s.%s.svc" $name $ns }}
- {{ printf "%s.%s.svc.cluster.local" $name $ns }}
{{- end -}}

{{/* The image: repository@digest when a digest is given, else repository:tag (the chart's appVersion by default). */}}
{{- define "earshot.image" -}}
{{- $image := .Values.image -}}
{{- if $image.digest -}}
{{ printf "%s@%s" $image.repository $image.digest }}
{{- else -}}
{{ printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) }}
{{- end -}}
{{- end -}}

{{/* The container's environment: its own ports, the secrets directory, extraEnv, then the shared ConfigMap (the Secret is a volume). */}}
{{- define "earshot.env" -}}
env:
{{- if eq .protocol "grpc" }}
  - { name: GRPC_HOST, value: "0.0.0.0" }
  - { name: GRPC_PORT, value: {{ .values.port | quote }} }
{{- else }}
  - { name: HOST, value: "0.0.0.0" }
  - { name: PORT, value: {{ .values.port | quote }} }
  - { name: EARSHOT_OAUTH_KEYS_FILE, value: /etc/earshot/oauth/oauth-signing-keys.json }
{{- end }}
  - { name: EARSHOT_METRICS_PORT, value: {{ .root.Values.global.metricsPort | quote }} }
  - { name: KAFKA_CLIENT_ID, value: {{ printf "earshot-%s" .name | quote }} }
  # The Secret is mounted as files (see the secrets volume), never passed as environment values.
  - { name: EARSHOT_SECRETS_DIR, value: /etc/earshot/secrets }
{{- with .root.Values.grpcTls }}
{{- if .enabled }}
  # Mutual TLS: the grpc-tls volume's files; servers require this CA's client certificates, clients present theirs.
  - { name: EARSHOT_GRPC_TLS_CA_FILE, value: /etc/earshot/grpc-tls/ca.crt }
  - { name: EARSHOT_GRPC_TLS_CERT_FILE, value: /etc/earshot/grpc-tls/tls.crt }
  - { name: EARSHOT_GRPC_TLS_KEY_FILE, value: /etc/earshot/grpc-tls/tls.key }
  {{- with .serverName }}
  - { name: EARSHOT_GRPC_TLS_SERVER_NAME, value: {{ . | quote }} }
  {{- end }}
{{- end }}
{{- end }}
{{- with .root.Values.extraEnv }}
  {{- toYaml . | nindent 2 }}
{{- end }}
envFrom:
  - configMapRef: { name: {{ include "earshot.configMapName" .root }} }
{{- end -}}

{{/* Pod and container security contexts: a non-root user above 10000, read-only root filesystem. */}}
{{- define "earshot.podSecurityContext" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: {{ .root.Values.podSecurityContext.runAsUser }}
  runAsGroup: {{ .root.Values.podSecurityContext.runAsGroup }}
  fsGroup: {{ .root.Values.podSecurityContext.runAsGroup }}
  seccompProfile: { type: RuntimeDefault }
{{- end -}}

{{- define "earshot.containerSecurityContext" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  runAsUser: {{ .root.Values.podSecurityContext.runAsUser }}
  runAsGroup: {{ .root.Values.podSecurityContext.runAsGroup }}
  capabilities: { drop: ["ALL"] }
{{- end -}}

{{/*
Probes, plain HTTP GETs: /readyz and /healthz on the edge's public port, and on a gRPC service's metrics
port (ready while its gRPC server is SERVING and not draining). A kubelet's native gRPC probe could not
present the client certificate the gRPC port requires under mutual TLS (grpcTls), so there is one way.
*/}}
{{- define "earshot.probes" -}}
{{- $port := ternary "metrics" "http" (eq .protocol "grpc") -}}
readinessProbe:
  httpGet: { path: /readyz, port: {{ $port }} }
  periodSeconds: 5
livenessProbe:
  httpGet: { path: /healthz, port: {{ $port }} }
  periodSeconds: 10
  failureThreshold: 3
{{- end -}}

{{/* Spread a deployable's replicas over nodes (preferred), unless topologySpreadConstraints is given. */}}
{{- define "earshot.topologySpread" -}}
topologySpreadConstraints:
{{- if .root.Values.topologySpreadConstraints }}
  {{- toYaml .root.Values.topologySpreadConstraints | nindent 2 }}
{{- else }}
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "earshot.selector" . | nindent 8 }}
{{- end }}
{{- end -}}

{{/*
One service: ServiceAccount, Deployment and Service, plus a HorizontalPodAutoscaler and a
PodDisruptionBudget when enabled.
  {{ include "earshot.service" (dict "root" $ "name" "account" "values" .Values.account "protocol" "grpc") }}
*/}}
{{- define "earshot.service" -}}
{{- $name := .name -}}
{{- $fullname := include "earshot.fullname" . -}}
{{- $v := .values -}}
{{- $root := .root -}}
{{- if and $v.autoscaling.enabled (gt (int $v.autoscaling.minReplicas) (int $v.autoscaling.maxReplicas)) -}}
{{- fail (printf "%s.autoscaling.minReplicas (%v) must not exceed maxReplicas (%v)" $name $v.autoscaling.minReplicas $v.autoscaling.maxReplicas) -}}
{{- end -}}
# Its own identity, with no Kubernetes API token: no Earshot process talks to the API server.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
automountServiceAccountToken: false
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
spec:
  {{- if not $v.autoscaling.enabled }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "earshot.selector" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "earshot.labels" . | nindent 8 }}
      annotations:
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
        # Metrics are served on their own port (named metrics), never on the public one.
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $root.Values.global.metricsPort | quote }}
        prometheus.io/path: /metrics
        {{- with $root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ $fullname }}
      automountServiceAccountToken: false
      # The preStop pause (the endpoints stop sending new calls meanwhile), then SIGTERM drains within 10 s.
      terminationGracePeriodSeconds: {{ add 15 $root.Values.preStopSleepSeconds }}
      {{- include "earshot.podSecurityContext" . | nindent 6 }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- include "earshot.topologySpread" . | nindent 6 }}
      containers:
        - name: {{ $name }}
          image: {{ include "earshot.image" $root | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: [{{ $name | quote }}]
          ports:
            - name: {{ .protocol }}
              containerPort: {{ $v.port }}
            - name: metrics
              containerPort: {{ $root.Values.global.metricsPort }}
          {{- include "earshot.env" . | nindent 10 }}
          {{- include "earshot.probes" . | nindent 10 }}
          {{- if gt (int $root.Values.preStopSleepSeconds) 0 }}
          lifecycle:
            # Endpoint removal reaches every proxy a moment after the pod is marked terminating; serving on
            # meanwhile drops no request on a rolling update. node is the one binary the image is sure to have.
            preStop:
              exec:
                command: ["node", "-e", "setTimeout(() => {}, {{ mul $root.Values.preStopSleepSeconds 1000 }})"]
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          {{- include "earshot.containerSecurityContext" . | nindent 10 }}
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
            # EARSHOT_DATA_DIR (the image sets /data): mail is written there as .eml files without EARSHOT_SMTP_URL.
            - { name: data, mountPath: /data }
            - { name: secrets, mountPath: /etc/earshot/secrets, readOnly: true }
            {{- if eq .protocol "http" }}
            - { name: oauth-keys, mountPath: /etc/earshot/oauth, readOnly: true }
            {{- end }}
            {{- if $root.Values.grpcTls.enabled }}
            - { name: grpc-tls, mountPath: /etc/earshot/grpc-tls, readOnly: true }
            {{- end }}
      volumes:
        - { name: tmp, emptyDir: {} }
        - { name: data, emptyDir: {} }
        # EARSHOT_SECRETS_DIR: a file per key of the Secret, readable by the pod's group only.
        - name: secrets
          secret:
            secretName: {{ include "earshot.secretName" $root }}
            defaultMode: 288 # 0440 octal: written in decimal, which every YAML parser reads alike
        {{- if eq .protocol "http" }}
        # Every edge replica must sign and verify OAuth tokens with the same keys.
        - name: oauth-keys
          secret:
            secretName: {{ required "global.oauthSigningKeysSecret is required (see deploy/generate-oauth-keys.js)" $root.Values.global.oauthSigningKeysSecret }}
        {{- end }}
        {{- if $root.Values.grpcTls.enabled }}
        # Mutual TLS between the processes: ca.crt, tls.crt and tls.key (a provided Secret or cert-manager's).
        - name: grpc-tls
          secret:
            secretName: {{ include "earshot.grpcTlsSecretName" $root }}
            defaultMode: 288 # 0440, the pod's group only
        {{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
spec:
  selector:
    {{- include "earshot.selector" . | nindent 4 }}
  ports:
    - name: {{ .protocol }}
      port: {{ $v.port }}
      targetPort: {{ .protocol }}
      appProtocol: {{ .protocol }}
{{- if $v.autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $fullname }}
  minReplicas: {{ $v.autoscaling.minReplicas }}
  maxReplicas: {{ $v.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $v.autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
{{- if $v.podDisruptionBudget.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
spec:
  minAvailable: {{ $v.podDisruptionBudget.minAvailable }}
  selector:
    matchLabels:
      {{- include "earshot.selector" . | nindent 6 }}
{{- end }}
{{- end -}}

{{/*
The NetworkPolicy of one deployable (service context plus, from the registry, "callers": the deployables
calling its gRPC API, "calls": a dict of "name" and "port" per service it dials, and "internet"): who may
reach its port, and where it may connect.
*/}}
{{- define "earshot.networkPolicy" -}}
{{- $root := .root -}}
{{- $np := $root.Values.networkPolicy -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "earshot.fullname" . }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "earshot.selector" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  {{- if not (or (eq .protocol "http") .callers $np.metricsNamespaceLabels $np.metricsPodLabels) }}
  # Nothing may connect to it: a consumer-only deployable with no metrics scraper allowed.
  ingress: []
  {{- else }}
  ingress:
    {{- if eq .protocol "http" }}
    # The ingress controller's namespace, on the public port only (the metrics port is not routed).
    - from:
        - namespaceSelector:
            matchLabels:
              {{- toYaml $np.ingressNamespaceLabels | nindent 14 }}
      ports:
        - { port: {{ .values.port }}, protocol: TCP }
    {{- if eq .name "gateway" }}
    # The helm test pod (templates/tests/readyz.yaml).
    - from:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: earshot-test
              app.kubernetes.io/instance: {{ $root.Release.Name }}
      ports:
        - { port: {{ .values.port }}, protocol: TCP }
    {{- end }}
    {{- else if .callers }}
    # Only the deployables that call its gRPC API (derived from the service registry).
    - from:
        {{- range .callers }}
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ . }}
              app.kubernetes.io/instance: {{ $root.Release.Name }}
        {{- end }}
      ports:
        - { port: {{ .values.port }}, protocol: TCP }
    {{- end }}
    {{- if or $np.metricsNamespaceLabels $np.metricsPodLabels }}
    # The metrics scraper (its namespace, its pods, or its pods in that namespace), on the metrics port only.
    - from:
        - {{- with $np.metricsNamespaceLabels }}
          namespaceSelector:
            matchLabels:
              {{- toYaml . | nindent 14 }}
          {{- end }}
          {{- with $np.metricsPodLabels }}
          podSelector:
            matchLabels:
              {{- toYaml . | nindent 14 }}
          {{- end }}
      ports:
        - { port: {{ $root.Values.global.metricsPort }}, protocol: TCP }
    {{- end }}
  {{- end }}
  egress:
    # DNS.
    - ports:
        - { port: 53, protocol: UDP }
        - { port: 53, protocol: TCP }
    # MongoDB, Kafka and SMTP: by port, to the peers networkPolicy.datastores names (anywhere by default).
    - {{- with $np.datastores }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      ports:
        {{- range $np.egressPorts }}
        - { port: {{ . }}, protocol: TCP }
        {{- end }}
    {{- range .calls }}
    - to:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ .name }}
              app.kubernetes.io/instance: {{ $root.Release.Name }}
      ports:
        - { port: {{ .port }}, protocol: TCP }
    {{- end }}
    {{- if .internet }}
    # Third-party APIs and webhook receivers: the internet on 443, never the private ranges.
    - to:
        - ipBlock:
            cidr: 0.0.0.0/0
            except: [10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 169.254.0.0/16, 100.64.0.0/10, 127.0.0.0/8]
      ports:
        - { port: 443, protocol: TCP }
    {{- end }}
{{- end -}}
