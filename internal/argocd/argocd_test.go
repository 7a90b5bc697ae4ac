package argocd

import (
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
)

func TestMatches(t *testing.T) {
	obj := func(av, kind, name, ns string) map[string]any {
		md := map[string]any{"name": name}
		if ns != "" {
			md["namespace"] = ns
		}
		return map[string]any{"apiVersion": av, "kind": kind, "metadata": md}
	}
	tests := []struct {
		rule Rule
		obj  map[string]any
		want bool
	}{
		{Rule{Group: "apps", Kind: "Deployment"}, obj("apps/v1", "Deployment", "x", ""), true},
		{Rule{Group: "", Kind: "ConfigMap"}, obj("v1", "ConfigMap", "x", ""), true},
		{Rule{Group: "apps", Kind: "ConfigMap"}, obj("v1", "ConfigMap", "x", ""), false},
		{Rule{Group: "*", Kind: "*"}, obj("v1", "ConfigMap", "x", ""), true},
		{Rule{Group: "*.io", Kind: "External*"}, obj("external-secrets.io/v1", "ExternalSecret", "x", ""), true},
		{Rule{Group: "external-secrets.io", Kind: "ExternalSecret", Name: "y"}, obj("external-secrets.io/v1", "ExternalSecret", "x", ""), false},
		{Rule{Group: "external-secrets.io", Kind: "ExternalSecret", Name: "{{.name}}"}, obj("external-secrets.io/v1", "ExternalSecret", "x", ""), true},
		{Rule{Group: "apps", Kind: "Deployment", Namespace: "a"}, obj("apps/v1", "Deployment", "x", "a"), true},
		{Rule{Group: "apps", Kind: "Deployment", Namespace: "a"}, obj("apps/v1", "Deployment", "x", "b"), false},
		{Rule{Group: "apps", Kind: "Deployment", Namespace: "a", DefaultNamespace: "a"}, obj("apps/v1", "Deployment", "x", ""), true},
		{Rule{Group: "apps", Kind: "Deployment", Namespace: "a"}, obj("apps/v1", "Deployment", "x", ""), false},
		// cluster-scoped kinds do not take the destination namespace
		{Rule{Group: "external-secrets.io", Kind: "ClusterSecretStore", Namespace: "a", DefaultNamespace: "a"}, obj("external-secrets.io/v1", "ClusterSecretStore", "x", ""), false},
	}
	for i, tc := range tests {
		if got := tc.rule.Matches(tc.obj); got != tc.want {
			t.Errorf("%d: %+v on %v: got %v, want %v", i, tc.rule, tc.obj, got, tc.want)
		}
	}
}

func TestPointer(t *testing.T) {
	doc := map[string]any{"metadata": map[string]any{"annotations": map[string]any{"a/b": "1", "c~d": "2"}},
		"spec": map[string]any{"l": []any{"x", "y"}}}
	tests := []struct {
		ptr    string
		path   string
		exists bool
		err    bool
	}{
		{"/metadata/annotations/a~1b", `.metadata.annotations["a/b"]`, true, false},
		{"/metadata/annotations/c~0d", `.metadata.annotations["c~d"]`, true, false},
		{"/spec/l/1", ".spec.l[1]", true, false},
		{"/spec/l/-1", ".spec.l[1]", true, false},
		{"/spec/l/5", ".spec.l[5]", false, false},
		{"/spec/l/x", "", false, true},
		{"/spec/missing/deeper", ".spec.missing.deeper", false, false},
		{"spec", "", false, true},
	}
	for _, tc := range tests {
		p, exists, err := Pointer(doc, tc.ptr)
		if (err != nil) != tc.err {
			t.Errorf("%s: err %v", tc.ptr, err)
			continue
		}
		if err != nil {
			continue
		}
		if got := p.String(); got != tc.path || exists != tc.exists {
			t.Errorf("%s: got %s %v, want %s %v", tc.ptr, got, exists, tc.path, tc.exists)
		}
	}
}

func TestExtract(t *testing.T) {
	src := `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: a, namespace: argocd}
spec:
  destination: {namespace: dest}
  source: {path: apps/a, helm: {releaseName: r, valueFiles: [v.yaml], parameters: [{name: x, value: "1"}], skipSchemaValidation: true}}
  ignoreDifferences:
    - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas], jqPathExpression: [.x]}
---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: s}
spec:
  template:
    spec:
      destination: {namespace: '{{.ns}}'}
      ignoreDifferences:
        - {kind: ConfigMap, managedFieldsManagers: [m]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm}
data:
  resource.customizations.ignoreDifferences.apps_Deployment: |
    jqPathExpressions: [.spec.replicas]
  resource.customizations.ignoreDifferences.Service: |
    jsonPointers: [/spec/clusterIP]
  resource.customizations.ignoreDifferences.all: |
    managedFieldsManagers: [kube-controller-manager]
  resource.customizations.health.apps_Deployment: "hs = {}"
  resource.customizations: |
    cert-manager.io/Certificate:
      ignoreDifferences: |
        jsonPointers: [/spec/issuerRef/kind]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
data:
  resource.customizations.ignoreDifferences.apps_Deployment: |
    jqPathExpressions: [.ignored]
`
	objs, err := manifest.Decode("apps.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Extract(objs)
	if err != nil {
		t.Fatal(err)
	}
	if f.Apps != 2 || f.ConfigMaps != 1 {
		t.Errorf("apps %d, configmaps %d", f.Apps, f.ConfigMaps)
	}
	var got []string
	for _, r := range f.Rules {
		got = append(got, r.Origin.Kind+" "+r.Group+"/"+r.Kind+" ns="+r.DefaultNamespace+" "+strings.Join(append(append(append([]string{}, r.JSONPointers...), r.JQPathExpressions...), r.ManagedFieldsManagers...), ","))
	}
	want := []string{
		"Application apps/Deployment ns=dest /spec/replicas",
		"ApplicationSet /ConfigMap ns= m",
		"ConfigMap cert-manager.io/Certificate ns= /spec/issuerRef/kind",
		"ConfigMap /Service ns= /spec/clusterIP",
		"ConfigMap */* ns= kube-controller-manager",
		"ConfigMap apps/Deployment ns= .spec.replicas",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], `unknown field "jqPathExpression"`) {
		t.Errorf("warnings %v", f.Warnings)
	}
	if len(f.Applications) != 2 || len(f.Applications[0].Sources) != 1 {
		t.Fatalf("applications %+v", f.Applications)
	}
	if s := f.Applications[0].Sources[0]; s.ReleaseName != "r" || s.Path != "apps/a" || len(s.Parameters) != 1 || !s.SkipSchemaValidation {
		t.Errorf("sources %+v", f.Applications[0].Sources)
	}
	if _, err := overrideKey("a_b_c"); err == nil {
		t.Error("a_b_c: want an error")
	}
}

func TestSameRepo(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://github.com/example/gitops.git", "git@github.com:example/gitops", true},
		{"https://github.com/Example/GitOps/", "ssh://git@github.com:22/example/gitops.git", true},
		{"https://github.com/example/gitops", "https://github.com/example/other", false},
		{"https://gitlab.example.com/a/b", "https://github.com/a/b", false},
	} {
		if got := SameRepo(tc.a, tc.b); got != tc.same {
			t.Errorf("SameRepo(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}
