package apiserver

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// promOperatorWebhook: prometheus-operator's optional admission webhook
// (pkg/admission, served by cmd/admission-webhook or by the operator in
// kube-prometheus-stack), registered from the MutatingWebhookConfiguration
// the operator's own e2e tests use. Its shipped profile has no schema
// defaults: objects are filled with prometheus-operator selected too.
var promOperatorWebhook = &webhookOperator{
	name:      "promop",
	module:    "github.com/prometheus-operator/prometheus-operator",
	operator:  "prometheus-operator-admission-webhook",
	alongside: []string{"prometheus-operator"},
	metadata:  true,
	crds:      []string{"example/prometheus-operator-crd-full/*.yaml"},
	samples:   []string{"example/user-guides/alerting/*.yaml", "example/thanos/*.yaml"},
	groups:    []string{"monitoring.coreos.com"},
	objects:   "objects.yaml",
	manifests: []string{"test/framework/resources/prometheus-operator-mutatingwebhook.yaml"},
	probe: map[string]any{
		"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
		"metadata": map[string]any{"name": "probe"},
		"spec":     map[string]any{"groups": []any{map[string]any{"name": "g", "rules": []any{map[string]any{"record": "r", "expr": "up"}}}}},
	},
	probed: func(o *unstructured.Unstructured) bool {
		return o.GetAnnotations()["prometheus-operator-validated"] == "true"
	},
	learned: func(t *testing.T, stdout string, _ learnReport, _ map[string]string) {
		// The annotation on every PrometheusRule, with or without
		// annotations of its own; one written "false" is stored "true".
		for _, want := range []string{
			"path: .metadata.annotations[\"prometheus-operator-validated\"]\n        value: \"true\"",
			"rewrites:\n      - path: .metadata.annotations[\"prometheus-operator-validated\"]\n        from: \"false\"\n        to: \"true\"",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("not learned:\n%s", want)
			}
		}
	},
	// v0.93.0 (go.mod) on every run; the other releases (a go.vV.mod each)
	// with E2E_PROMOP_RELEASES, built with the tag of the release's
	// admission.New signature (webhook-promop/admission_*.go): gokit
	// before v0.76, slogonly before v0.86, scheme to v0.90.
	releases: modfileReleases("promop", tagsByMinor("", below{76, "gokit"}, below{86, "slogonly"}, below{91, "scheme"})),
}

// TestPromOperatorWebhook learns the PrometheusRule mutation of
// prometheus-operator's admission webhook from its own code in a real
// kube-apiserver and checks the release's examples and the suite's own
// PrometheusRules filled with both profiles against what the server stores
// (webhookOperator.run).
func TestPromOperatorWebhook(t *testing.T) { promOperatorWebhook.run(t) }
