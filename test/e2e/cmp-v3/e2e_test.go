// Shared by test/e2e/cmp-v2 and test/e2e/cmp-v3 (see harness_test.go).

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	appsetutils "github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
)

// application renders an Application manifest that uses the plugin, with
// the given source path and plugin block (indented for spec.source.plugin).
func application(name, path, pluginBlock string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: %s
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: datadog
  source:
    repoURL: https://github.com/example/gitops.git
    targetRevision: main
    path: %s
    plugin:
      name: cmp-defaults
%s
  syncPolicy:
    syncOptions: [ServerSideApply=true]
`, name, path, pluginBlock)
}

const (
	operatorsParam = `      parameters:
        - name: operators
          map:
            external-secrets: "2.5.0"`
	operatorsEnv = `      env:
        - name: CMP_DEFAULTS_OPERATORS
          value: external-secrets@2.5.0`
)

// find returns the objects of a kind.
func find(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// nullBytePolicies lists spec.data[].remoteRef.nullBytePolicy of an
// ExternalSecret ("" where absent).
func nullBytePolicies(t *testing.T, es *unstructured.Unstructured) []string {
	t.Helper()
	data, ok, err := unstructured.NestedSlice(es.Object, "spec", "data")
	if err != nil || !ok {
		t.Fatalf("ExternalSecret %s: spec.data: ok=%v %v", es.GetName(), ok, err)
	}
	var out []string
	for i, d := range data {
		item, _ := d.(map[string]any)
		p, _, err := unstructured.NestedString(item, "remoteRef", "nullBytePolicy")
		if err != nil {
			t.Fatalf("spec.data[%d].remoteRef.nullBytePolicy: %v", i, err)
		}
		out = append(out, p)
	}
	return out
}

// The examples' ExternalSecret has three data items: two without
// nullBytePolicy and one that sets Fail.
func checkFilled(t *testing.T, objs []*unstructured.Unstructured, want []string) *unstructured.Unstructured {
	t.Helper()
	ess := find(objs, "ExternalSecret")
	if len(ess) != 1 {
		t.Fatalf("%d ExternalSecrets, want 1:\n%s", len(ess), toYAML(objs))
	}
	es := ess[0]
	got := nullBytePolicies(t, es)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("spec.data[].remoteRef.nullBytePolicy = %q, want %q\n%s", got, want, toYAML(objs))
	}
	if es.GetNamespace() != "datadog" {
		t.Errorf("ExternalSecret namespace %q, want datadog", es.GetNamespace())
	}
	return es
}

var (
	filled25 = []string{"Ignore", "Ignore", "Fail"} // external-secrets v2.3.0-v2.6.x
	filled27 = []string{"", "", "Fail"}             // v2.7.0 does not default it
)

func TestPluginSocketAndConfiguration(t *testing.T) {
	// No spec.version: Applications name the plugin exactly "cmp-defaults".
	if _, err := os.Stat(filepath.Join(sockDir, "cmp-defaults.sock")); err != nil {
		t.Fatalf("plugin socket: %v", err)
	}
	cfg, err := dial(t).CheckPluginConfiguration(t.Context(), &emptypb.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.IsDiscoveryConfigured {
		t.Errorf("discovery is configured; plugin.yaml ships without discover rules")
	}
	if cfg.ProvideGitCreds {
		t.Errorf("plugin asks for Git credentials; it needs none")
	}
}

// Without discovery, an Application that does not name the plugin keeps
// Argo CD's native tools: the plugin is not picked for a Helm chart.
func TestNoDiscovery(t *testing.T) {
	conn, _, err := discovery.DetectConfigManagementPlugin(t.Context(), filepath.Join(gitRepo, "examples/helm"), gitRepo, "", nil, nil)
	if err == nil {
		conn.Close()
		t.Fatal("an Application without plugin name was matched to cmp-defaults")
	}
	if !strings.Contains(err.Error(), "could not find plugin supporting the given repository") {
		t.Errorf("unexpected error: %v", err)
	}
}

func TestParametersAnnouncement(t *testing.T) {
	app := parseApp(t, application("datadog", "examples/plain", operatorsParam))
	ann, err := announce(t, app)
	if err != nil {
		t.Fatal(err)
	}
	// The UI shows the first announcement of each name: the dynamic one.
	first := map[string]int{}
	for i, a := range ann {
		if _, ok := first[a.Name]; !ok {
			first[a.Name] = i
		}
	}
	want := map[string]string{
		"operators": "map", "values-files": "array", "values": "string", "set": "map",
		"release-name": "string", "namespace": "string", "skip-schema-validation": "string", "allow-empty": "string",
	}
	for name, ct := range want {
		i, ok := first[name]
		if !ok {
			t.Errorf("parameter %s not announced", name)
			continue
		}
		if ann[i].CollectionType != ct {
			t.Errorf("%s: collectionType %q, want %q", name, ann[i].CollectionType, ct)
		}
	}
	if len(first) != len(want) {
		t.Errorf("announced %d names, want %d", len(first), len(want))
	}
	// Dynamic (from `cmp-defaults parameters`) and static (plugin.yaml) lists.
	if len(ann) != 2*len(want) {
		t.Errorf("%d announcements, want %d dynamic + %d static", len(ann), len(want), len(want))
	}
	// Operators are offered empty: the form sent back unchanged selects nothing.
	ops := ann[first["operators"]].Map
	for _, op := range []string{"external-secrets", "cert-manager"} {
		if v, ok := ops[op]; !ok || v != "" {
			t.Errorf("operators announcement lacks %s or suggests a release: %v", op, ops)
		}
	}
	if s := ann[first["allow-empty"]].String_; s != "false" {
		t.Errorf("allow-empty default %q", s)
	}
}

// User profiles in $CMP_DEFAULTS_PROFILES_DIR (the ConfigMap mounted in the
// sidecar) reach the announcement: the CMP server runs commands with its own
// environment.
func TestParametersAnnouncementProfilesDir(t *testing.T) {
	dir := t.TempDir()
	profile := "apiVersion: cmp-defaults.io/v1alpha1\nkind: OperatorProfile\noperator: example-operator\nversion: v0.3.1\n" +
		"description: e2e\nresources:\n  - group: example.com\n    version: v1\n    kind: Widget\n    defaults:\n" +
		"      - path: .spec.mode\n        type: string\n        value: Auto\n"
	if err := os.WriteFile(filepath.Join(dir, "example-operator-v0.3.1.yaml"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CMP_DEFAULTS_PROFILES_DIR", dir)
	ann, err := announce(t, parseApp(t, application("datadog", "examples/plain", "")))
	if err != nil {
		t.Fatal(err)
	}
	if len(ann) == 0 || ann[0].Name != "operators" || !strings.Contains(ann[0].Tooltip, "example-operator 0.3.1") {
		t.Errorf("first announcement %+v: want operators with example-operator 0.3.1", ann[0])
	}
	if _, ok := ann[0].Map["example-operator"]; !ok {
		t.Errorf("first announcement %+v: example-operator not offered", ann[0])
	}
}

func TestGenerate(t *testing.T) {
	cases := []struct {
		name, path, plugin string
		want               []string
		check              func(t *testing.T, objs []*unstructured.Unstructured, es *unstructured.Unstructured)
	}{
		{
			name: "plain", path: "examples/plain", plugin: operatorsParam, want: filled25,
			check: func(t *testing.T, objs []*unstructured.Unstructured, _ *unstructured.Unstructured) {
				cms := find(objs, "ConfigMap")
				if len(objs) != 2 || len(cms) != 1 {
					t.Fatalf("want the ExternalSecret and the ConfigMap:\n%s", toYAML(objs))
				}
				if got, _, _ := unstructured.NestedStringMap(cms[0].Object, "data"); got["DD_SITE"] != "datadoghq.eu" || len(got) != 2 {
					t.Errorf("ConfigMap changed: %v", got)
				}
			},
		},
		{
			// Operators from the plugin env (ApplicationSets set it per cluster).
			name: "plain-env", path: "examples/plain", plugin: operatorsEnv, want: filled25,
		},
		{
			// The parameter wins over the env.
			name: "param-over-env", path: "examples/plain", want: filled25,
			plugin: `      env:
        - name: CMP_DEFAULTS_OPERATORS
          value: external-secrets@2.7.0
      parameters:
        - name: operators
          map:
            external-secrets: "2.5.0"`,
		},
		{
			// A release whose CRD has no nullBytePolicy default.
			name: "plain-2.7.0", path: "examples/plain", want: filled27,
			plugin: `      parameters:
        - name: operators
          map:
            external-secrets: "2.7.0"`,
		},
		{
			name: "helm", path: "examples/helm", plugin: operatorsParam, want: filled25,
			check: func(t *testing.T, objs []*unstructured.Unstructured, es *unstructured.Unstructured) {
				if len(objs) != 1 {
					t.Errorf("%d objects, want 1", len(objs))
				}
				if ri, _, _ := unstructured.NestedString(es.Object, "spec", "refreshInterval"); ri != "1h" {
					t.Errorf("refreshInterval %q, want 1h (values.yaml)", ri)
				}
			},
		},
		{
			name: "helm-values", path: "examples/helm", want: filled25,
			plugin: operatorsEnv + `
      parameters:
        - name: values-files
          array: [values-prod.yaml]
        - name: set
          map:
            target.name: datadog-agent-prod`,
			check: func(t *testing.T, _ []*unstructured.Unstructured, es *unstructured.Unstructured) {
				ri, _, _ := unstructured.NestedString(es.Object, "spec", "refreshInterval")
				store, _, _ := unstructured.NestedString(es.Object, "spec", "secretStoreRef", "name")
				target, _, _ := unstructured.NestedString(es.Object, "spec", "target", "name")
				if ri != "15m" || store != "gcp-secret-store-prod" {
					t.Errorf("values-files not applied: refreshInterval %q, secretStoreRef.name %q", ri, store)
				}
				if target != "datadog-agent-prod" {
					t.Errorf("set not applied: target.name %q", target)
				}
			},
		},
		{
			// The overlay's base lies outside the application path, inside the repository.
			name: "kustomize", path: "examples/kustomize/overlays/prod", plugin: operatorsParam, want: filled25,
			check: func(t *testing.T, objs []*unstructured.Unstructured, es *unstructured.Unstructured) {
				if ri, _, _ := unstructured.NestedString(es.Object, "spec", "refreshInterval"); ri != "1h" {
					t.Errorf("refreshInterval %q, want 1h (the overlay's patch)", ri)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, err := generate(t, parseApp(t, application("datadog", c.path, c.plugin)))
			if err != nil {
				t.Fatal(err)
			}
			es := checkFilled(t, objs, c.want)
			if c.check != nil {
				c.check(t, objs, es)
			}
		})
	}
}

// A failing render reaches repo-server as the CMP server's error, with the
// text cmp-defaults wrote to stderr: that is what the UI shows.
func TestGenerateRenderError(t *testing.T) {
	for _, c := range []struct{ name, path, want string }{
		{"helm-required", "apps/failing-helm", "e2e-render-failure: set .Values.secretKey"},
		{"broken-yaml", "apps/broken-yaml", "configmap.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := generate(t, parseApp(t, application("failing", c.path, operatorsParam)))
			if err == nil {
				t.Fatalf("generate succeeded:\n%s", toYAML(objs))
			}
			msg := err.Error()
			t.Logf("repo-server sees: %s", msg)
			if !strings.Contains(msg, "`cmp-defaults generate` failed") || !strings.Contains(msg, c.want) {
				t.Errorf("error does not carry the render failure %q:\n%s", c.want, msg)
			}
		})
	}
}

// Zero manifests with exit 0 would make Argo CD prune the whole application:
// generate refuses it unless allow-empty is true.
func TestGenerateEmptyRefused(t *testing.T) {
	objs, err := generate(t, parseApp(t, application("empty", "apps/empty", operatorsParam)))
	if err == nil {
		t.Fatalf("an empty result was accepted (%d objects)", len(objs))
	}
	if !strings.Contains(err.Error(), "allow-empty") {
		t.Errorf("the refusal does not say how to allow it:\n%v", err)
	}

	objs, err = generate(t, parseApp(t, application("empty", "apps/empty", operatorsParam+`
        - name: allow-empty
          string: "true"`)))
	if err != nil {
		t.Fatalf("allow-empty=true: %v", err)
	}
	if len(objs) != 0 {
		t.Errorf("allow-empty=true: %d objects, want 0", len(objs))
	}
}

// docYAML returns the fenced YAML blocks of a Markdown file in this
// repository that contain substr, dedented.
func docYAML(t *testing.T, doc, substr string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, doc))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var cur []string
	indent, in := "", false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case !in && strings.HasPrefix(trimmed, "```yaml"):
			in, indent, cur = true, line[:len(line)-len(trimmed)], nil
		case in && strings.HasPrefix(trimmed, "```"):
			in = false
			if b := strings.Join(cur, "\n"); strings.Contains(b, substr) {
				blocks = append(blocks, b)
			}
		case in:
			cur = append(cur, strings.TrimPrefix(line, indent))
		}
	}
	if len(blocks) == 0 {
		t.Fatalf("%s: no yaml block with %q", doc, substr)
	}
	return blocks
}

// docs/discovery.md's plugin.yaml, run in a second CMP server: a directory
// with the marker is discovered, a Helm chart without it is not, and a named
// Application must match the rules as well.
func TestDiscoveryAsDocumented(t *testing.T) {
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal([]byte(docYAML(t, "docs/discovery.md", "kind: ConfigMap")[0]), &cm); err != nil {
		t.Fatal(err)
	}
	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, "plugin.yaml"), []byte(cm.Data["plugin.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	short, err := os.MkdirTemp("", "cmpd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	t.Setenv("ARGOCD_PLUGINSOCKFILEPATH", short)
	t.Setenv("ARGOCD_CMP_WORKDIR", filepath.Join(short, "w"))
	cfg, stop, err := startCMPServer(cfgDir)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if cfg.Metadata.Name != "cmp-defaults" || cfg.Spec.Version != "" {
		t.Errorf("documented plugin.yaml: name %q version %q", cfg.Metadata.Name, cfg.Spec.Version)
	}

	// An application directory that opts in with the marker file.
	marked := filepath.Join(gitRepo, "apps", "discovered")
	if err := os.CopyFS(marked, os.DirFS(filepath.Join(gitRepo, "examples", "plain"))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(marked) })
	if err := os.WriteFile(filepath.Join(marked, ".cmp-defaults"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	detect := func(path, name string) error {
		conn, _, err := discovery.DetectConfigManagementPlugin(t.Context(), filepath.Join(gitRepo, path), gitRepo, name, nil, nil)
		if err == nil {
			conn.Close()
		}
		return err
	}
	if err := detect("apps/discovered", ""); err != nil {
		t.Errorf("marked directory not discovered: %v", err)
	}
	if err := detect("apps/discovered", "cmp-defaults"); err != nil {
		t.Errorf("marked directory, named plugin: %v", err)
	}
	if err := detect("examples/helm", ""); err == nil {
		t.Errorf("a Helm chart without the marker was taken from Argo CD's Helm")
	}
	// "could not find" in v3, "couldn't find" in v2.14.
	if err := detect("examples/plain", "cmp-defaults"); err == nil || !strings.Contains(err.Error(), `find cmp-server plugin with name "cmp-defaults" supporting the given repository`) {
		t.Errorf("named Application without the marker: %v; want it refused (docs/discovery.md)", err)
	}

	// Discovered Applications carry no parameters: the sidecar's
	// CMP_DEFAULTS_OPERATORS selects the releases.
	t.Setenv("CMP_DEFAULTS_OPERATORS", "external-secrets@2.5.0")
	objs, err := generate(t, parseApp(t, strings.Replace(application("datadog", "apps/discovered", ""),
		"    plugin:\n      name: cmp-defaults\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	checkFilled(t, objs, filled25)
}

// generate prints a JSON stream (one object per line) where render prints
// YAML. What Argo CD makes of the two is the same, byte for byte: a second
// CMP server runs generate with its output turned into the YAML stream of
// the same objects (cmp-defaults fill without operators), and every
// application gets the same manifests from both.
func TestJSONOutputIsTheYAMLForArgoCD(t *testing.T) {
	odd := filepath.Join(gitRepo, "apps", "json-values")
	if err := os.MkdirAll(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(odd) })
	objects := `apiVersion: v1
kind: ConfigMap
metadata: {name: values, annotations: {"a.b/c": "<x & y>", empty: ""}}
data: {t: "true", n: "010", u: "é ☃ \u2028", nl: "a\nb", f: "1.0"}
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: numbers, labels: {"on": "yes"}}
spec:
  refreshInterval: 1h
  data: [{secretKey: k, remoteRef: {key: k, version: "1"}}]
  target: {template: {data: {i: "3", big: "1e21"}, metadata: {annotations: {x: null}}}}
`
	if err := os.WriteFile(filepath.Join(odd, "objects.yaml"), []byte(objects), 0o644); err != nil {
		t.Fatal(err)
	}
	apps := []struct{ path, plugin string }{
		{"examples/plain", operatorsParam},
		{"examples/helm", operatorsParam},
		{"examples/kustomize/overlays/prod", operatorsParam},
		{"apps/json-values", operatorsParam},
	}
	fromJSON := make([][]string, len(apps))
	for i, a := range apps {
		m, err := generateManifests(t, parseApp(t, application("datadog", a.path, a.plugin)))
		if err != nil {
			t.Fatalf("%s: %v", a.path, err)
		}
		fromJSON[i] = m
	}

	plugin, err := os.ReadFile(filepath.Join(repoRoot, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	yamlPlugin := strings.Replace(string(plugin), "command: [cmp-defaults, generate]",
		`command: [sh, -c, "set -e; cmp-defaults generate >out.json; cmp-defaults fill out.json; rm out.json"]`, 1)
	if yamlPlugin == string(plugin) {
		t.Fatal("plugin.yaml: generate command not found")
	}
	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, "plugin.yaml"), []byte(yamlPlugin), 0o644); err != nil {
		t.Fatal(err)
	}
	short, err := os.MkdirTemp("", "cmpy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	t.Setenv("ARGOCD_PLUGINSOCKFILEPATH", short)
	t.Setenv("ARGOCD_CMP_WORKDIR", filepath.Join(short, "w"))
	_, stop, err := startCMPServer(cfgDir)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for i, a := range apps {
		fromYAML, err := generateManifests(t, parseApp(t, application("datadog", a.path, a.plugin)))
		if err != nil {
			t.Fatalf("%s, as YAML: %v", a.path, err)
		}
		if len(fromYAML) == 0 || strings.Join(fromYAML, "\n") != strings.Join(fromJSON[i], "\n") {
			t.Errorf("%s: Argo CD gets other manifests from the JSON stream:\n%s\nthan from the YAML stream:\n%s",
				a.path, strings.Join(fromJSON[i], "\n"), strings.Join(fromYAML, "\n"))
		}
	}
}

// The Application manifests of docs/install.md, as written, against this
// repository's examples.
func TestInstallDocApplications(t *testing.T) {
	blocks := docYAML(t, "docs/install.md", "kind: Application\n")
	if len(blocks) < 3 {
		t.Fatalf("docs/install.md: %d Application manifests, want one per source type", len(blocks))
	}
	for _, b := range blocks {
		app := parseApp(t, b)
		t.Run(app.Name, func(t *testing.T) {
			if src := app.Spec.GetSource(); src.Plugin == nil || src.Plugin.Name != "cmp-defaults" {
				t.Fatalf("plugin %+v, want name cmp-defaults", src.Plugin)
			}
			objs, err := generate(t, app)
			if err != nil {
				t.Fatal(err)
			}
			checkFilled(t, objs, filled25)
		})
	}
}

// docs/install.md's ApplicationSet: Argo CD's template renderer turns it
// into one Application per labelled cluster, each filled for the release
// on its cluster Secret's label.
func TestInstallDocApplicationSet(t *testing.T) {
	var appset v1alpha1.ApplicationSet
	if err := yaml.UnmarshalStrict([]byte(docYAML(t, "docs/install.md", "kind: ApplicationSet")[0]), &appset); err != nil {
		t.Fatalf("ApplicationSet: %v", err)
	}
	if !appset.Spec.GoTemplate {
		t.Fatalf("the example uses goTemplate")
	}
	tmpl := appset.Spec.Template
	for _, c := range []struct {
		cluster, version string
		want             []string
	}{
		{"prod-eu", "2.5.0", filled25},
		{"staging", "2.7.0", filled27},
	} {
		t.Run(c.cluster, func(t *testing.T) {
			// The cluster generator's parameters (applicationset/generators/cluster.go, goTemplate).
			params := map[string]any{
				"name": c.cluster, "nameNormalized": c.cluster, "server": "https://" + c.cluster + ".example.com", "project": "",
				"metadata": map[string]any{"labels": map[string]string{
					"argocd.argoproj.io/secret-type": "cluster", "eso-version": c.version}},
			}
			app := &v1alpha1.Application{}
			app.Name, app.Namespace, app.Labels, app.Annotations = tmpl.Name, tmpl.Namespace, tmpl.Labels, tmpl.Annotations
			app.Spec = tmpl.Spec
			rendered, err := (&appsetutils.Render{}).RenderTemplateParams(app, nil, params, appset.Spec.GoTemplate, appset.Spec.GoTemplateOptions)
			if err != nil {
				t.Fatal(err)
			}
			if rendered.Name != "datadog-"+c.cluster {
				t.Errorf("Application name %q", rendered.Name)
			}
			objs, err := generate(t, rendered)
			if err != nil {
				t.Fatal(err)
			}
			checkFilled(t, objs, c.want)
		})
	}
	t.Run("unlabelled", func(t *testing.T) {
		params := map[string]any{"name": "x", "nameNormalized": "x", "server": "https://x", "project": "", "metadata": map[string]any{}}
		app := &v1alpha1.Application{Spec: tmpl.Spec}
		app.Name = tmpl.Name
		if _, err := (&appsetutils.Render{}).RenderTemplateParams(app, nil, params, true, appset.Spec.GoTemplateOptions); err == nil {
			t.Errorf("a cluster without the label rendered; missingkey=error should refuse it")
		}
	})
}

// BenchmarkGenerateRoundTrip is one manifest generation of examples/plain
// as repo-server runs it: tar the repository, stream it to the CMP server,
// unpack, run cmp-defaults generate, parse the manifests.
//
//	go test -run XXX -bench RoundTrip
func BenchmarkGenerateRoundTrip(b *testing.B) {
	app := parseApp(b, application("datadog", "examples/plain", operatorsParam))
	for b.Loop() {
		if _, err := generate(b, app); err != nil {
			b.Fatal(err)
		}
	}
}
