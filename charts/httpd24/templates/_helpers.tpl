{{/* Chart name, truncated to 63 characters (a DNS label). */}}
{{- define "httpd24.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: release name, plus the chart name when the release name does not contain it. */}}
{{- define "httpd24.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "httpd24.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "httpd24.selectorLabels" -}}
app.kubernetes.io/name: {{ include "httpd24.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "httpd24.labels" -}}
helm.sh/chart: {{ include "httpd24.chart" . }}
{{ include "httpd24.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: httpd24
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "httpd24.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "httpd24.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "httpd24.webhookService" -}}
{{- printf "%s-webhook" (include "httpd24.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "httpd24.tlsSecret" -}}
{{- printf "%s-webhook-tls" (include "httpd24.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "httpd24.certificate" -}}
{{- printf "%s-webhook" (include "httpd24.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Namespaces the webhooks never see: kube-system, the release namespace, and the values' list (sorted, unique). */}}
{{- define "httpd24.excludedNamespaces" -}}
{{- $all := list "kube-system" .Release.Namespace -}}
{{- range .Values.webhook.excludeNamespaces -}}{{- $all = append $all . -}}{{- end -}}
{{- toJson ($all | uniq | sortAlpha) -}}
{{- end -}}

{{- define "httpd24.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* Webhooks reach the in-cluster Service unless webhook.url is set. */}}
{{- define "httpd24.useService" -}}
{{- if not .Values.webhook.url -}}true{{- end -}}
{{- end -}}
