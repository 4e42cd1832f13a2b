{{/*
Names, labels and the pieces every Fencepost pod shares. Component helpers take
(dict "root" $ "component" "<name>").
*/}}

{{- define "fencepost.name" -}}
{{- printf "%s-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels: never the chart version, so selectors and claim templates stay immutable. */}}
{{- define "fencepost.selectorLabels" -}}
app.kubernetes.io/name: fencepost
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "fencepost.labels" -}}
{{ include "fencepost.selectorLabels" . }}
app.kubernetes.io/part-of: fencepost
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "fencepost.image" -}}
{{- printf "%s/fencepost/%s:%s" .root.Values.image.registry .repository .root.Values.image.tag -}}
{{- end -}}

{{/* The Kubernetes service-account subject a service maps to a role (fencepost.security.subject-roles). */}}
{{- define "fencepost.subject" -}}
{{- printf "system:serviceaccount:%s:%s" .root.Release.Namespace (include "fencepost.name" .) -}}
{{- end -}}

{{- define "fencepost.serviceHost" -}}
{{- printf "%s.%s.svc" (include "fencepost.name" .) .root.Release.Namespace -}}
{{- end -}}

{{- define "fencepost.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "fencepost.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* A JDBC URL for the migration step, which takes pgjdbc's TLS settings in the URL. */}}
{{- define "fencepost.migrationUrl" -}}
{{- $tls := .root.Values.databases.tls -}}
{{- $sep := ternary "&" "?" (contains "?" .url) -}}
{{- if eq $tls.mode "require" -}}
{{- printf "%s%ssslmode=require" .url $sep -}}
{{- else -}}
{{- printf "%s%ssslmode=%s&sslrootcert=/etc/fencepost/db-ca/%s" .url $sep $tls.mode $tls.rootCert.key -}}
{{- end -}}
{{- end -}}

{{/* JVM options: the trust store of the services' CA (ADR 0150), temp files under /tmp. */}}
{{- define "fencepost.javaToolOptions" -}}
{{- printf "-XX:MaxRAMPercentage=75 -Djava.io.tmpdir=/tmp -Djavax.net.ssl.trustStore=/etc/fencepost/trust/%s -Djavax.net.ssl.trustStoreType=PKCS12" .Values.tls.trustStore.key -}}
{{- end -}}

{{/* Environment every Java container gets; the chart's configuration file and the JVM options. */}}
{{- define "fencepost.javaEnv" -}}
- name: SPRING_CONFIG_ADDITIONAL_LOCATION
  value: file:/etc/fencepost/config/application.yaml
- name: JAVA_TOOL_OPTIONS
  value: {{ include "fencepost.javaToolOptions" .root | quote }}
{{- range $name, $value := .extraEnv }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}

{{- define "fencepost.dbEnv" -}}
{{- $db := index .root.Values.databases .database -}}
- name: {{ upper .database }}_USERNAME
  value: {{ $db.runtime.username | quote }}
- name: {{ upper .database }}_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $db.runtime.passwordSecret.name }}
      key: {{ $db.runtime.passwordSecret.key }}
{{- end -}}

{{/* Volumes of a Java service: /tmp, its configuration, TLS, the trust store, the db CA, its token. */}}
{{- define "fencepost.javaVolumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
- name: config
  configMap:
    name: {{ include "fencepost.name" . }}-config
- name: tls
  secret:
    secretName: {{ .tlsSecret }}
- name: trust
  configMap:
    name: {{ .root.Values.tls.trustStore.configMapName }}
{{- if .database }}
- name: db-ca
  configMap:
    name: {{ .root.Values.databases.tls.rootCert.configMapName }}
{{- end }}
{{- if .token }}
- name: token
  projected:
    sources:
      - serviceAccountToken:
          audience: {{ .root.Values.identity.audience }}
          expirationSeconds: 3600
          path: token
{{- end }}
{{- end -}}

{{- define "fencepost.javaVolumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: config
  mountPath: /etc/fencepost/config
  readOnly: true
- name: tls
  mountPath: /etc/fencepost/tls
  readOnly: true
- name: trust
  mountPath: /etc/fencepost/trust
  readOnly: true
{{- if .database }}
- name: db-ca
  mountPath: /etc/fencepost/db-ca
  readOnly: true
{{- end }}
{{- if .token }}
- name: token
  mountPath: /var/run/secrets/fencepost
  readOnly: true
{{- end }}
{{- end -}}

{{/* Probes on the management port (ADR 0151): health groups served without a token. */}}
{{- define "fencepost.probes" -}}
startupProbe:
  httpGet:
    path: /actuator/health/liveness
    port: management
    scheme: HTTPS
  periodSeconds: 5
  failureThreshold: 36
livenessProbe:
  httpGet:
    path: /actuator/health/liveness
    port: management
    scheme: HTTPS
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /actuator/health/readiness
    port: management
    scheme: HTTPS
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end -}}

{{/* The Spring settings every Java service's configuration file carries: TLS serving, token checks. */}}
{{/* The Spring settings every Java service's configuration file carries: TLS serving, token checks.
(dict "root" $ "datasourceUrl" <url or ""> "readiness" <health group members or ""> "batchJob" <"true"|"false"|"">) */}}
{{- define "fencepost.springCommon" -}}
server:
  ssl:
    bundle: fencepost
spring:
  ssl:
    bundle:
      pem:
        fencepost:
          reload-on-update: true
          keystore:
            certificate: file:/etc/fencepost/tls/tls.crt
            private-key: file:/etc/fencepost/tls/tls.key
  security:
    oauth2:
      resourceserver:
        jwt:
          jwk-set-uri: {{ .root.Values.identity.jwkSetUri | quote }}
          issuer-uri: {{ .root.Values.identity.issuerUri | quote }}
  {{- with .datasourceUrl }}
  datasource:
    url: {{ . | quote }}
  {{- end }}
  {{- with .batchJob }}
  batch:
    job:
      enabled: {{ . }}
  {{- end }}
management:
  server:
    ssl:
      bundle: fencepost
  {{- with .readiness }}
  endpoint:
    health:
      group:
        readiness:
          include: {{ . }}
  {{- end }}
{{- end -}}

{{- define "fencepost.dbTls" -}}
tls:
  mode: {{ .Values.databases.tls.mode }}
  {{- if ne .Values.databases.tls.mode "require" }}
  root-cert: /etc/fencepost/db-ca/{{ .Values.databases.tls.rootCert.key }}
  {{- end }}
{{- end -}}

{{- define "fencepost.railStubEnabled" -}}
{{- if .Values.staging.railStub.enabled }}true{{ end -}}
{{- end -}}

{{- define "fencepost.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "fencepost.name" . }}
  labels:
    {{- include "fencepost.labels" . | nindent 4 }}
  {{- with .gcp }}
  annotations:
    iam.gke.io/gcp-service-account: {{ . | quote }}
  {{- end }}
automountServiceAccountToken: false
{{- end -}}
