{{/*
Named templates shared by every Earshot service. Most take the "service context", a dict of
  root      the chart's root context ($)
  name      the deployable's name, as declared in its package.json (e.g. "mcp-gateway")
  values    its values block (e.g. .Values.mcpGateway)
  protocol  "grpc" or "http"
*/}}

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

{{/* The container's environment: its own listen port, then the shared ConfigMap and Secret. */}}
{{- define "earshot.env" -}}
env:
{{- if eq .protocol "grpc" }}
  - { name: GRPC_HOST, value: "0.0.0.0" }
  - { name: GRPC_PORT, value: {{ .values.port | quote }} }
  - { name: KAFKA_CLIENT_ID, value: {{ printf "earshot-%s" .name | quote }} }
{{- else }}
  - { name: HOST, value: "0.0.0.0" }
  - { name: PORT, value: {{ .values.port | quote }} }
  - { name: EARSHOT_METRICS_PORT, value: {{ .root.Values.global.metricsPort | quote }} }
  - { name: KAFKA_CLIENT_ID, value: {{ printf "earshot-%s" .name | quote }} }
  - { name: EARSHOT_OAUTH_KEYS_FILE, value: /etc/earshot/oauth/oauth-signing-keys.json }
{{- end }}
envFrom:
  - configMapRef: { name: {{ include "earshot.configMapName" .root }} }
  - secretRef: { name: {{ include "earshot.secretName" .root }} }
{{- end -}}

{{/* Pod and container security contexts: the image's non-root node user, read-only root filesystem. */}}
{{- define "earshot.podSecurityContext" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 1000
  runAsGroup: 1000
  seccompProfile: { type: RuntimeDefault }
{{- end -}}

{{- define "earshot.containerSecurityContext" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  runAsUser: 1000
  capabilities: { drop: ["ALL"] }
{{- end -}}

{{/* Probes: native gRPC health checks (grpc.health.v1) for services, /healthz and /readyz for the HTTP edge. */}}
{{- define "earshot.probes" -}}
{{- if eq .protocol "grpc" -}}
readinessProbe:
  grpc: { port: {{ .values.port }} }
  periodSeconds: 5
livenessProbe:
  grpc: { port: {{ .values.port }} }
  periodSeconds: 10
  failureThreshold: 3
{{- else -}}
readinessProbe:
  httpGet: { path: /readyz, port: {{ .protocol }} }
  periodSeconds: 5
livenessProbe:
  httpGet: { path: /healthz, port: {{ .protocol }} }
  periodSeconds: 10
  failureThreshold: 3
{{- end -}}
{{- end -}}

{{/*
One service: Deployment and Service, plus a HorizontalPodAutoscaler and a PodDisruptionBudget when enabled.
  {{ include "earshot.service" (dict "root" $ "name" "account" "values" .Values.account "protocol" "grpc") }}
*/}}
{{- define "earshot.service" -}}
{{- $name := .name -}}
{{- $v := .values -}}
{{- $root := .root -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
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
        {{- if eq .protocol "http" }}
        # Metrics are served on their own port, never on the public one.
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $root.Values.global.metricsPort | quote }}
        prometheus.io/path: /metrics
        {{- end }}
    spec:
      # SIGTERM drains within 10 s.
      terminationGracePeriodSeconds: 15
      {{- include "earshot.podSecurityContext" . | nindent 6 }}
      containers:
        - name: {{ $name }}
          image: "{{ $root.Values.image.repository }}:{{ $root.Values.image.tag }}"
          imagePullPolicy: {{ $root.Values.image.pullPolicy | default "IfNotPresent" }}
          args: [{{ $name | quote }}]
          ports:
            - name: {{ .protocol }}
              containerPort: {{ $v.port }}
            {{- if eq .protocol "http" }}
            - name: metrics
              containerPort: {{ $root.Values.global.metricsPort }}
            {{- end }}
          {{- include "earshot.env" . | nindent 10 }}
          {{- include "earshot.probes" . | nindent 10 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          {{- include "earshot.containerSecurityContext" . | nindent 10 }}
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
            # EARSHOT_DATA_DIR (the image sets /data): mail is written there as .eml files without EARSHOT_SMTP_URL.
            - { name: data, mountPath: /data }
            {{- if eq .protocol "http" }}
            - { name: oauth-keys, mountPath: /etc/earshot/oauth, readOnly: true }
            {{- end }}
      volumes:
        - { name: tmp, emptyDir: {} }
        - { name: data, emptyDir: {} }
        {{- if eq .protocol "http" }}
        # Every edge replica must sign and verify OAuth tokens with the same keys.
        - name: oauth-keys
          secret:
            secretName: {{ required "global.oauthSigningKeysSecret is required (see deploy/generate-oauth-keys.js)" $root.Values.global.oauthSigningKeysSecret }}
        {{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
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
  name: {{ $name }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $name }}
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
  name: {{ $name }}
  labels:
    {{- include "earshot.labels" . | nindent 4 }}
spec:
  minAvailable: {{ $v.podDisruptionBudget.minAvailable }}
  selector:
    matchLabels:
      {{- include "earshot.selector" . | nindent 6 }}
{{- end }}
{{- end -}}
