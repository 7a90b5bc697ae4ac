package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// shippedKind is one kind of the newest shipped profile of an operator.
type shippedKind struct {
	kind, plural string
	scope        apiextv1.ResourceScope
}

// testOperators: Gateway API (both channels), prometheus-operator,
// CloudNativePG, Kyverno, Envoy Gateway, the OpenTelemetry operator, Argo
// Rollouts, Crossplane, the Grafana operator, KEDA and Karpenter. The CRDs of each operator's newest release are
// built in the test from the shipped profile (every default at its path)
// and from the objects' own fields, never copied from upstream; the objects
// are realistic manifests as users write them. Every diff mode must be
// Synced with cmp-defaults, and the filled objects must equal what the
// server stores.
func testOperators(t *testing.T, s *server, a *argo) {
	ns, cl := apiextv1.NamespaceScoped, apiextv1.ClusterScoped
	for _, c := range []struct {
		id, operator, release, profile string
		kinds                          []shippedKind
	}{
		{"gw", "gateway-api", "1.6.1", "gateway-api/v1.6.0.yaml", []shippedKind{{"HTTPRoute", "httproutes", ns}}},
		{"gwx", "gateway-api-experimental", "1.6.1", "gateway-api-experimental/v1.6.0.yaml", []shippedKind{{"HTTPRoute", "httproutes", ns}, {"GRPCRoute", "grpcroutes", ns}}},
		{"prom", "prometheus-operator", "0.93.0", "prometheus-operator/v0.93.0.yaml", []shippedKind{{"ServiceMonitor", "servicemonitors", ns}, {"Prometheus", "prometheuses", ns}}},
		// The CRD defaults alone: the operator's webhook mutations are
		// checked with that webhook in TestCNPGWebhook.
		{"cnpg", "cloudnative-pg", "1.29.2", "cloudnative-pg/v1.29.2.yaml", []shippedKind{{"Cluster", "clusters", ns}}},
		{"kyverno", "kyverno", "1.19.0", "kyverno/v1.19.0.yaml", []shippedKind{{"ClusterPolicy", "clusterpolicies", cl}}},
		{"eg", "envoy-gateway", "1.9.0", "envoy-gateway/v1.9.0.yaml", []shippedKind{{"SecurityPolicy", "securitypolicies", ns}, {"BackendTrafficPolicy", "backendtrafficpolicies", ns}}},
		{"otel", "opentelemetry-operator", "0.158.0", "opentelemetry-operator/v0.157.0.yaml", []shippedKind{{"OpenTelemetryCollector", "opentelemetrycollectors", ns}}},
		{"rollouts", "argo-rollouts", "1.9.1", "argo-rollouts/v1.9.0.yaml", []shippedKind{{"Rollout", "rollouts", ns}, {"AnalysisTemplate", "analysistemplates", ns}}},
		{"xp", "crossplane", "2.3.4", "crossplane/v2.2.0.yaml", []shippedKind{{"Provider", "providers", cl}, {"ImageConfig", "imageconfigs", cl}, {"Composition", "compositions", cl}, {"CompositeResourceDefinition", "compositeresourcedefinitions", cl}}},
		{"grafana", "grafana-operator", "5.24.0", "grafana-operator/v5.24.0.yaml", []shippedKind{{"GrafanaDashboard", "grafanadashboards", ns}, {"GrafanaAlertRuleGroup", "grafanaalertrulegroups", ns}}},
		{"keda", "keda", "2.20.2", "keda/v2.20.0.yaml", []shippedKind{{"ScaledObject", "scaledobjects", ns}, {"ScaledJob", "scaledjobs", ns}}},
		{"karpenter", "karpenter", "1.14.1", "karpenter/v1.14.0.yaml", []shippedKind{{"NodePool", "nodepools", cl}}},
	} {
		t.Run(c.operator+"@"+c.release, func(t *testing.T) {
			objects := filepath.Join("testdata", "operators", c.operator+".yaml")
			var crds []*apiextv1.CustomResourceDefinition
			for _, k := range c.kinds {
				crds = append(crds, scopedCRDFromProfile(t, c.profile, k.kind, k.plural, k.scope, objects))
			}
			a.installCRDs(t, crds)
			fillArgs := []string{"--operator", c.operator + "@" + c.release}
			// No operator webhook runs in this admission chain: an operator
			// with learned webhook mutations is filled with its CRD
			// defaults alone.
			if c.operator == "cloudnative-pg" {
				fillArgs = crdsOnlyProfile(t, c.profile, c.release)
			}
			results := a.run(t, scenario{
				id:       c.id,
				crds:     crds,
				objects:  readObjects(t, objects),
				fillArgs: fillArgs,
			})
			requireNoProblems(t, results)
			// The list-item defaults these operators are known for make
			// the app OutOfSync under ServerSideApply=true without
			// cmp-defaults: the suite must see it, or it proves nothing.
			drift := 0
			for _, r := range results {
				if len(r.added) == 0 {
					t.Errorf("%s: the server added nothing; the scenario does not exercise %s's defaults", r.id, c.operator)
				}
				if !r.raw["structured-merge(ssa)"].synced() {
					drift++
				}
			}
			if drift == 0 {
				t.Errorf("no object of %s was OutOfSync without cmp-defaults under ServerSideApply=true", c.operator)
			}
			if c.id == "gwx" {
				wrongChannel(t, s, a, objects)
			}
		})
	}
}

// crdsOnlyProfile writes the CRD schema defaults of a shipped profile as
// the operator crds-only, and returns the fill arguments that select it.
func crdsOnlyProfile(t *testing.T, profileFile, release string) []string {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "profiles", profileFile))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := yaml.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	p["operator"], p["version"] = "crds-only", "v"+release
	delete(p, "learned")
	for _, r := range p["resources"].([]any) {
		for _, k := range []string{"mutations", "rewrites", "webhook"} {
			delete(r.(map[string]any), k)
		}
	}
	out, err := yaml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crds-only.yaml"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--operator", "crds-only@" + release, "--profiles-dir", dir}
}

// wrongChannel: the standard channel's profile on a cluster that runs the
// experimental CRDs. check shows the field the experimental CRD defaults and
// names the channel.
func wrongChannel(t *testing.T, s *server, a *argo, objects string) {
	a.ensureNamespace(t, "shop")
	r := runBinary(t, "", "check", "--kubeconfig", s.kubeconfig, "--operator", "gateway-api@1.6.1", objects)
	if r.code != 3 {
		t.Fatalf("check with the standard channel on experimental CRDs: exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"# gateway-api@1.6.1: profile v1.6.0, standard channel",
		`+ .spec.rules[1].sessionPersistence.type = "Cookie"  the cluster adds this field`,
		"note: gateway-api has the standard channel's profiles",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := runBinary(t, "", "check", "--kubeconfig", s.kubeconfig, "--operator", "gateway-api-experimental@1.6.1", objects); r.code != 0 {
		t.Errorf("check with the experimental channel: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
