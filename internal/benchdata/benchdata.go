// Package benchdata writes the fixtures the benchmarks share: a Helm chart
// with 50 templates, a Kustomize overlay with 200 resources, a one-file
// source, and streams of ExternalSecrets and Certificates.
package benchdata

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Stream returns n objects: ExternalSecrets in the shape of the seed
// scenario with two to four data items, every tenth a cert-manager
// Certificate.
func Stream(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString("---\n")
		}
		if i%10 == 9 {
			fmt.Fprintf(&b, "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: cert-%d, namespace: team-%d}\nspec:\n  secretName: cert-%d-tls\n  dnsNames: [app-%d.example.com]\n  issuerRef: {name: letsencrypt}\n", i, i%7, i, i)
			continue
		}
		fmt.Fprintf(&b, "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: secret-%d, namespace: team-%d, labels: {app: app-%d}}\nspec:\n  refreshInterval: 1h\n  secretStoreRef: {kind: ClusterSecretStore, name: gcp-secret-store}\n  target: {creationPolicy: Owner, name: secret-%d}\n  data:\n", i, i%7, i, i)
		for j := 0; j < 2+i%3; j++ {
			fmt.Fprintf(&b, "    - secretKey: key-%d\n      remoteRef: {key: remote-%d-%d}\n", j, i, j)
		}
	}
	return b.Bytes()
}

// Chart writes a Helm chart with n templates (ExternalSecrets, Deployments
// and ConfigMaps driven by values) into dir.
func Chart(dir string, n int) error {
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: bench\nversion: 1.0.0\n",
		"values.yaml": "replicas: 2\nimage: registry.example.com/app:1.2.3\nstore: gcp-secret-store\nkeys: [api-key, app-key, site]\n",
		"templates/_helpers.tpl": `{{- define "bench.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
`,
	}
	for i := 0; i < n; i++ {
		var t string
		switch i % 3 {
		case 0:
			t = fmt.Sprintf(`apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: {{ .Release.Name }}-secret-%d
  labels: {{- include "bench.labels" . | nindent 4 }}
spec:
  refreshInterval: 1h
  secretStoreRef: {kind: ClusterSecretStore, name: {{ .Values.store }}}
  target: {name: {{ .Release.Name }}-secret-%d}
  data:
  {{- range .Values.keys }}
    - secretKey: {{ . }}
      remoteRef: {key: {{ $.Release.Name }}-%d-{{ . }}}
  {{- end }}
`, i, i, i)
		case 1:
			t = fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-app-%d
  labels: {{- include "bench.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: app-%d}}
  template:
    metadata: {labels: {app: app-%d}}
    spec:
      containers:
        - name: app
          image: {{ .Values.image | quote }}
          ports: [{containerPort: 8080}]
`, i, i, i)
		default:
			t = fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config-%d
  labels: {{- include "bench.labels" . | nindent 4 }}
data:
  index: "%d"
  replicas: {{ .Values.replicas | quote }}
`, i, i)
		}
		files[fmt.Sprintf("templates/t%02d.yaml", i)] = t
	}
	return write(dir, files)
}

// Kustomize writes a base with n resources and an overlay (namespace,
// labels, a patch) into dir/base and dir/overlay.
func Kustomize(dir string, n int) error {
	files := map[string]string{
		"overlay/kustomization.yaml": "resources: [../base]\nnamespace: prod\nlabels:\n  - pairs: {env: prod}\n    includeSelectors: false\npatches:\n  - target: {kind: ExternalSecret}\n    patch: |-\n      - op: replace\n        path: /spec/refreshInterval\n        value: 15m\n",
	}
	var res bytes.Buffer
	res.WriteString("resources:\n")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("r%03d.yaml", i)
		fmt.Fprintf(&res, "  - %s\n", name)
		if i%2 == 0 {
			files["base/"+name] = fmt.Sprintf("apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: secret-%d}\nspec:\n  refreshInterval: 1h\n  secretStoreRef: {kind: ClusterSecretStore, name: gcp}\n  target: {name: secret-%d}\n  data:\n    - secretKey: a\n      remoteRef: {key: k-%d}\n", i, i, i)
		} else {
			files["base/"+name] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: config-%d}\ndata: {index: \"%d\"}\n", i, i)
		}
	}
	files["base/kustomization.yaml"] = res.String()
	return write(dir, files)
}

// OneFile writes a directory source with a single ExternalSecret.
func OneFile(dir string) error {
	return write(dir, map[string]string{"externalsecret.yaml": string(Stream(1))})
}

func write(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
