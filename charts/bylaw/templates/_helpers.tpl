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

{{/* The webhooks' shared fields: system namespaces (and Bylaw's own) excluded, high-volume kinds left out. */}}
{{- define "bylaw.webhookScope" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: [kube-system, kube-public, kube-node-lease, {{ .Release.Namespace }}]
matchConditions:
  - name: exclude-events
    expression: '!(request.resource.resource == "events" && (request.resource.group == "" || request.resource.group == "events.k8s.io"))'
  - name: exclude-nodes-and-leases
    expression: '!((request.resource.group == "" && request.resource.resource == "nodes") || (request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases"))'
  - name: exclude-reviews-and-apiservices
    expression: '!(request.resource.group in ["authentication.k8s.io", "authorization.k8s.io", "apiregistration.k8s.io"])'
  - name: exclude-replicasets-and-bindings
    expression: '!((request.resource.group == "apps" && request.resource.resource == "replicasets") || (request.resource.group == "" && request.resource.resource == "bindings") || (request.resource.resource == "pods" && request.subResource == "binding"))'
{{- end -}}

{{/* clientConfig for a webhook path. */}}
{{- define "bylaw.clientConfig" -}}
clientConfig:
  service:
    name: bylaw
    namespace: {{ .root.Release.Namespace }}
    path: {{ .path }}
    port: 443
  caBundle: {{ .root.Values.webhooks.caBundle }}
{{- end -}}
