package controller

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// operatorApp is one shipped operator with realistic objects (the files of
// test/e2e/apiserver, one source for both suites) and the kinds whose CRDs
// the test builds from the operator's profile.
type operatorApp struct {
	operator, release, profile, objects string
	kinds                               []crdKind
}

type crdKind struct {
	kind, plural string
	scope        apiextv1.ResourceScope
}

var (
	ns = apiextv1.NamespaceScoped
	cl = apiextv1.ClusterScoped
	// externalSecrets is the release the bundled examples are filled for.
	externalSecrets = operatorApp{"external-secrets", "2.5.0", "external-secrets/v2.5.0.yaml", "", []crdKind{{"ExternalSecret", "externalsecrets", ns}}}
	// operatorApps: one app per shipped operator besides External Secrets
	// (the examples). gateway-api-experimental is left out: its HTTPRoute
	// CRD would replace the standard channel's in the same cluster.
	// cert-manager is left out: its defaults are under .status or applied
	// by its controller, nothing an Application shows (test/e2e/apiserver
	// covers it). cloudnative-pg is left out: Argo CD's health check for its
	// Cluster fails on an object no operator has given a status
	// (ComparisonError "attempt to index a non-table object(nil) with key
	// 'phaseReason'"), which says nothing about the diff.
	operatorApps = []operatorApp{
		{"gateway-api", "1.6.1", "gateway-api/v1.6.0.yaml", "gateway-api.yaml", []crdKind{{"HTTPRoute", "httproutes", ns}}},
		{"prometheus-operator", "0.93.0", "prometheus-operator/v0.93.0.yaml", "prometheus-operator.yaml", []crdKind{{"ServiceMonitor", "servicemonitors", ns}, {"Prometheus", "prometheuses", ns}}},
		{"kyverno", "1.19.0", "kyverno/v1.19.0.yaml", "kyverno.yaml", []crdKind{{"ClusterPolicy", "clusterpolicies", cl}}},
	}
)

// clusterOperators is the operators parameter of every plugin app: the
// releases running in the cluster.
func clusterOperators() map[string]string {
	m := map[string]string{externalSecrets.operator: externalSecrets.release}
	for _, o := range operatorApps {
		m[o.operator] = o.release
	}
	return m
}

func (o operatorApp) objectsFile() string {
	return filepath.Join(repoRoot(), "test", "e2e", "apiserver", "testdata", "operators", o.objects)
}

// exampleFiles are the files of the bundled examples' ExternalSecrets: the
// fields they use are declared in the test's ExternalSecret CRD.
func exampleFiles() []string {
	r := repoRoot()
	return []string{
		filepath.Join(r, "examples", "plain", "externalsecret.yaml"),
		filepath.Join(r, "examples", "kustomize", "base", "externalsecret.yaml"),
		filepath.Join(r, "test", "e2e", "apiserver", "testdata", "external-secrets", "objects.yaml"),
	}
}

var installOperatorsOnce sync.Once

// installOperators installs, once, the CRDs of every operator the scenarios
// use into the in-cluster API server, built from the shipped profiles.
func installOperators(t testing.TB) {
	t.Helper()
	installOperatorsOnce.Do(func() {
		crds := []*apiextv1.CustomResourceDefinition{crdFromProfile(t, externalSecrets.profile, "ExternalSecret", "externalsecrets", exampleFiles()...)}
		for _, o := range operatorApps {
			for _, k := range o.kinds {
				crds = append(crds, scopedCRDFromProfile(t, o.profile, k.kind, k.plural, k.scope, o.objectsFile()))
			}
		}
		cluster.applyCRDs(t, crds)
	})
}

// examples commits the bundled examples under prefix/ (plain, helm,
// kustomize), each in a namespace of its own (prefix-plain, ...), and
// returns an app per example; the apps are completed by the caller.
func examples(t testing.TB, prefix string, which ...string) []app {
	t.Helper()
	if len(which) == 0 {
		which = []string{"plain", "helm", "kustomize"}
	}
	files := map[string]string{}
	var apps []app
	for _, ex := range which {
		nsName := prefix + "-" + ex
		rewrite := func(s string) string { return strings.ReplaceAll(s, "namespace: datadog", "namespace: "+nsName) }
		for p, c := range under(prefix+"/"+ex, copyTree(t, filepath.Join(repoRoot(), "examples", ex), rewrite)) {
			files[p] = c
		}
		path := prefix + "/" + ex
		if ex == "kustomize" {
			path += "/overlays/prod"
		}
		cluster.ensureNamespace(t, nsName)
		apps = append(apps, app{name: nsName, path: path, namespace: nsName})
	}
	repo.commit(t, "examples for "+prefix, files)
	return apps
}

// operators commits each operator's objects under prefix/<operator>/ with
// their namespaces (or, cluster-scoped, their names) prefixed, so that
// scenarios do not share objects, and returns an app per operator.
func operators(t testing.TB, prefix string) []app {
	t.Helper()
	files := map[string]string{}
	var apps []app
	for _, o := range operatorApps {
		var docs []string
		namespaces := map[string]bool{}
		for _, obj := range readObjects(t, o.objectsFile()) {
			if n := obj.GetNamespace(); n != "" {
				obj.SetNamespace(prefix + "-" + n)
				namespaces[obj.GetNamespace()] = true
			} else {
				obj.SetName(prefix + "-" + obj.GetName())
			}
			y, err := yaml.Marshal(obj.Object)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(y))
		}
		files[prefix+"/"+o.operator+"/objects.yaml"] = strings.Join(docs, "---\n")
		var nsList []string
		for n := range namespaces {
			cluster.ensureNamespace(t, n)
			nsList = append(nsList, n)
		}
		sort.Strings(nsList)
		dest := prefix + "-" + o.operator
		if len(nsList) > 0 {
			dest = nsList[0]
		}
		cluster.ensureNamespace(t, dest)
		apps = append(apps, app{name: prefix + "-" + o.operator, path: prefix + "/" + o.operator, namespace: dest})
	}
	repo.commit(t, "operator apps for "+prefix, files)
	return apps
}

// head is the revision of main.
func head(t testing.TB) string {
	t.Helper()
	rev, err := repo.git("rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// filledResources lists "Kind namespace/name" of the objects of file that
// cmp-defaults changes (run as a user would: cmp-defaults fill).
// Objects without a namespace get namespace, as Argo CD gives them the
// destination's.
func filledResources(t testing.TB, file, namespace string, operators map[string]string) []string {
	t.Helper()
	args := []string{"fill"}
	for n, v := range operators {
		args = append(args, "--operator", n+"@"+v)
	}
	cmd := exec.Command(binary, append(args, file)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmp-defaults %s %s: %v\n%s", strings.Join(args, " "), file, err, stderr.String())
	}
	filled := filepath.Join(t.TempDir(), "filled.yaml")
	if err := os.WriteFile(filled, out, 0o600); err != nil {
		t.Fatal(err)
	}
	key := func(o *unstructured.Unstructured) string {
		n := o.GetNamespace()
		if n == "" && o.GetKind() != "ClusterPolicy" {
			n = namespace
		}
		return o.GetKind() + " " + n + "/" + o.GetName()
	}
	before := map[string]*unstructured.Unstructured{}
	for _, o := range readObjects(t, file) {
		before[key(o)] = o
	}
	var changed []string
	for _, o := range readObjects(t, filled) {
		if b, ok := before[key(o)]; !ok || !equality.Semantic.DeepEqual(b.Object, o.Object) {
			changed = append(changed, key(o))
		}
	}
	sort.Strings(changed)
	return changed
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// unsetValuesES is an ExternalSecret as a Helm template renders it when
// the values it reads are unset ('deletionPolicy: {{ .Values.x }}' gives
// null): the API server stores the defaults of those non-nullable fields in
// place of the nulls, and Argo CD's client-side diff, which keeps every
// field the manifest names, shows it.
const unsetValuesES = `apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: datadog-api-key
spec:
  refreshInterval: null
  secretStoreRef: {kind: ClusterSecretStore, name: gcp-secret-store}
  data:
    - secretKey: api-key
      remoteRef:
        key: my-datadog-api-key
        conversionStrategy: null
  target:
    name: datadog-agent
    creationPolicy: Owner
    deletionPolicy: null
`

// unsetValues commits unsetValuesES under prefix/unset-values and returns
// its app (namespace prefix-unset-values).
func unsetValues(t testing.TB, prefix string) app {
	t.Helper()
	name := prefix + "-unset-values"
	cluster.ensureNamespace(t, name)
	repo.commit(t, "unset Helm values for "+prefix, map[string]string{prefix + "/unset-values/externalsecret.yaml": unsetValuesES})
	return app{name: name, path: prefix + "/unset-values", namespace: name}
}

// fillFile writes what 'cmp-defaults fill --operator op file' prints to a
// temporary file and returns its path.
func fillFile(t testing.TB, file, op string) string {
	t.Helper()
	cmd := exec.Command(binary, "fill", "--operator", op, file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmp-defaults fill --operator %s %s: %v\n%s", op, file, err, stderr.String())
	}
	p := filepath.Join(t.TempDir(), "filled.yaml")
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
