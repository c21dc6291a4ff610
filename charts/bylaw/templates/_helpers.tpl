{{/* Labels on every object: kustomize's (app.kubernetes.io/part-of) and Helm's own. */}}
{{- define "bylaw.helmLabels" -}}
app.kubernetes.io/part-of: bylaw
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The admission pods' selector labels. */}}
{{- define "bylaw.admissionSelector" -}}
app.kubernetes.io/name: bylaw
app.kubernetes.io/component: admission-webhook
{{- end -}}

{{/* --metrics-auth: metrics.auth when set, else token with the ServiceMonitor (as deploy/components/servicemonitor) and none without. */}}
{{- define "bylaw.metricsAuth" -}}
{{- if .Values.metrics.auth -}}
{{ .Values.metrics.auth }}
{{- else if .Values.metrics.serviceMonitor.enabled -}}
token
{{- else -}}
none
{{- end -}}
{{- end -}}
