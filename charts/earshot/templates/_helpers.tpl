{{/* Labels shared by every object of one component. */}}
{{- define "earshot.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/part-of: earshot
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
{{- end -}}

{{- define "earshot.selector" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{- define "earshot.secretName" -}}
{{- if .Values.global.existingSecret -}}{{ .Values.global.existingSecret }}{{- else -}}{{ .Release.Name }}-earshot{{- end -}}
{{- end -}}

{{/* Probes: native gRPC health checks for services, /healthz and /readyz for the HTTP edge. */}}
{{- define "earshot.probes" -}}
{{- if eq .protocol "grpc" }}
readinessProbe:
  grpc: { port: {{ .values.port }} }
  periodSeconds: 5
livenessProbe:
  grpc: { port: {{ .values.port }} }
  periodSeconds: 10
  failureThreshold: 3
{{- else }}
readinessProbe:
  httpGet: { path: /readyz, port: {{ .values.port }} }
  periodSeconds: 5
livenessProbe:
  httpGet: { path: /healthz, port: {{ .values.port }} }
  periodSeconds: 10
  failureThreshold: 3
{{- end }}
{{- end -}}

{{/*
One component: Deployment, Service, and optionally HorizontalPodAutoscaler and PodDisruptionBudget.
Call with (dict "root" $ "name" "account" "values" .Values.account "protocol" "grpc").
*/}}
{{- define "earshot.component" -}}
{{- $name := .name -}}
{{- $v := .values -}}
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
    spec:
      terminationGracePeriodSeconds: 15
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile: { type: RuntimeDefault }
      containers:
        - name: {{ $name }}
          image: "{{ .root.Values.image.repository }}:{{ .root.Values.image.tag }}"
          imagePullPolicy: {{ .root.Values.image.pullPolicy | default "IfNotPresent" }}
          args: [{{ $name | quote }}]
          ports:
            - name: {{ .protocol }}
              containerPort: {{ $v.port }}
          env:
            - { name: GRPC_PORT, value: {{ $v.port | quote }} }
            - { name: PORT, value: {{ $v.port | quote }} }
            {{- if eq .protocol "http" }}
            - { name: EARSHOT_OAUTH_KEYS_FILE, value: /etc/earshot/oauth/oauth-signing-keys.json }
            {{- end }}
          envFrom:
            - configMapRef: { name: {{ .root.Release.Name }}-earshot }
            - secretRef: { name: {{ include "earshot.secretName" .root }} }
          {{- include "earshot.probes" . | nindent 10 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: { drop: ["ALL"] }
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
            {{- if eq .protocol "http" }}
            - { name: oauth-keys, mountPath: /etc/earshot/oauth, readOnly: true }
            {{- end }}
      volumes:
        - { name: tmp, emptyDir: {} }
        {{- if eq .protocol "http" }}
        # Every edge replica must sign and verify OAuth tokens with the same keys.
        - name: oauth-keys
          secret:
            secretName: {{ required "global.oauthSigningKeysSecret is required (see deploy/generate-oauth-keys.js)" .root.Values.global.oauthSigningKeysSecret }}
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
