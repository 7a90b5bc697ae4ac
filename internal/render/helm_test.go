package render

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// appOptions renders testdata chart "app" with capabilities that turn on its
// optional parts.
func appOptions(t *testing.T) Options {
	root := testRepo(t)
	return Options{Dir: filepath.Join(root, "charts", "app"), RepoRoot: root, Helm: settings.Helm{ReleaseName: "rel", Namespace: "team", KubeVersion: "1.34.0", APIVersions: []string{"monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor"}}}
}

func TestHelmRender(t *testing.T) {
	objs := render(t, appOptions(t))
	want := []string{
		// crds/ of the chart, then of its subcharts (sub twice: as itself and as alias "second")
		"CustomResourceDefinition widgets.example.com",
		"CustomResourceDefinition gadgets.example.com",
		"CustomResourceDefinition gadgets.example.com",
		// manifests in helm's install order
		// (kind order, then template path; a List is an unknown kind to helm, so it comes late)
		"Namespace team-extra",
		"ServiceAccount rel-app",
		"ConfigMap rel-app-config",
		"Service rel-second-9090",
		"Service rel-sub-8080",
		"Service rel-app",
		"Deployment rel-app",
		"Secret rel-app-a",
		"Secret rel-app-b",
		"ServiceMonitor rel-app",
		"Widget rel-app",
		// hooks by weight (-5, 0, 5); the unknown hook is dropped like helm does; NOTES.txt is not output
		"ConfigMap rel-app-hook-config",
		"Pod rel-app-test",
		"Job rel-app-migrate",
	}
	if got := ids(objs); !reflect.DeepEqual(got, want) {
		t.Fatalf("objects:\n got %q\nwant %q", got, want)
	}
	cm := find(t, objs, "ConfigMap", "rel-app-config")
	wantData := map[string]any{
		"release": "rel", "namespace": "team", "kubeVersion": "v1.34.0", "kubeMinor": "34", "isInstall": "true",
		"hasPolicyV1": "true", "hasMonitoring": "true", "hasServiceMonitorKind": "true",
		"greeting": "hello", "count": "3", "ratio": "0.5", "fileSize": "some data from a chart file", "modern": "true",
	}
	if got := cm.Data["data"]; !reflect.DeepEqual(got, wantData) {
		t.Errorf("ConfigMap data:\n got %v\nwant %v", got, wantData)
	}
	if cm.Source != "app/templates/configmap.yaml" || cm.Doc != 1 {
		t.Errorf("ConfigMap from %s", cm.Where())
	}
	ns := find(t, objs, "Namespace", "team-extra")
	if ns.Source != "app/templates/multi.yaml" || ns.Doc != 4 || ns.Line != 21 {
		t.Errorf("Namespace from %s, want app/templates/multi.yaml: document 4 (line 21)", ns.Where())
	}
	if s := find(t, objs, "Secret", "rel-app-b"); s.Source != "app/templates/multi.yaml" || s.Doc != 5 {
		t.Errorf("Secret from %s", s.Where())
	}
	if crd := objs[0]; crd.Source != "app/crds/widgets.example.com.yaml" {
		t.Errorf("CRD from %s", crd.Where())
	}
	if d := find(t, objs, "Deployment", "rel-app"); d.Data["spec"].(map[string]any)["replicas"] != int64(2) {
		t.Errorf("replicas = %#v, want int64 2", d.Data["spec"].(map[string]any)["replicas"])
	}
	labels := find(t, objs, "Deployment", "rel-app").Data["metadata"].(map[string]any)["labels"].(map[string]any)
	if labels["helm.sh/chart"] != "app-1.2.3" || labels["app.kubernetes.io/version"] != "4.5.6" {
		t.Errorf("library chart labels: %v", labels)
	}
}

func TestHelmCapabilitiesDefault(t *testing.T) {
	opt := appOptions(t)
	opt.APIVersions = nil
	opt.KubeVersion = "v1.30"
	objs := render(t, opt)
	for _, o := range objs {
		if o.Data["kind"] == "ServiceMonitor" {
			t.Error("ServiceMonitor rendered without its API version in the capabilities")
		}
	}
	data := find(t, objs, "ConfigMap", "rel-app-config").Data["data"].(map[string]any)
	if data["kubeVersion"] != "v1.30" || data["hasMonitoring"] != "false" || data["modern"] != "true" {
		t.Errorf("capabilities: %v", data)
	}
	opt.KubeVersion = "1.24"
	renderErr(t, opt, "requires kubeVersion: >=1.25.0-0", "Kubernetes v1.24")
	opt.KubeVersion = "one.two"
	renderErr(t, opt, `invalid kube version "one.two"`)
}

func TestHelmValues(t *testing.T) {
	opt := appOptions(t)
	opt.ValuesFiles = []string{"values/prod.yaml"}
	opt.Values = "config:\n  count: 7\nimage:\n  tag: v9\n"
	opt.Set = []string{"replicas=4", "optional.enabled=true"}
	opt.SetString = []string{"config.ratio=0.75"}
	objs := render(t, opt)
	d := find(t, objs, "Deployment", "rel-app").Data
	if r := d["spec"].(map[string]any)["replicas"]; r != int64(4) {
		t.Errorf("replicas = %v, want 4 (--set wins over values files)", r)
	}
	c := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if c["image"] != "registry.example.com/app:v9" {
		t.Errorf("image = %v (inline values)", c["image"])
	}
	data := find(t, objs, "ConfigMap", "rel-app-config").Data["data"].(map[string]any)
	if data["greeting"] != "bonjour" || data["count"] != "7" || data["ratio"] != "0.75" {
		t.Errorf("values: %v", data)
	}
	find(t, objs, "ConfigMap", "rel-optional") // enabled by --set optional.enabled=true

	for _, tc := range []struct {
		file  string
		wants []string
	}{
		{"../../../etc/passwd", []string{`values file "../../../etc/passwd"`, "outside the repository root"}},
		{"../../etc/passwd", []string{`values file "../../etc/passwd" not found`}}, // testdata/repo/etc/passwd: inside the root
		{"../../../../../../../../../../etc/passwd", []string{"outside the repository root"}},
		{"/etc/passwd", []string{`values file "/etc/passwd"`, "absolute paths are not allowed"}},
		{"values/missing.yaml", []string{`values file "values/missing.yaml" not found`}},
		{"https://example.com/values.yaml", []string{"remote source not supported"}},
		{"../broken/values.yaml", nil}, // inside the repository: fine
	} {
		opt := appOptions(t)
		opt.ValuesFiles = []string{tc.file}
		if tc.wants == nil {
			render(t, opt)
			continue
		}
		renderErr(t, opt, tc.wants...)
	}
	// The classic escape from a chart one level below the repository root.
	tmp := t.TempDir()
	chart := filepath.Join(tmp, "repo", "chart")
	writeChart(t, chart, "c", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	mkfile(t, filepath.Join(tmp, "etc", "passwd"), "root: x\n")
	renderErr(t, Options{Dir: chart, RepoRoot: filepath.Join(tmp, "repo"), Helm: settings.Helm{ReleaseName: "r", ValuesFiles: []string{"../../etc/passwd"}}}, `values file "../../etc/passwd"`, "outside the repository root")
	opt = appOptions(t)
	opt.Set = []string{"noequals"}
	renderErr(t, opt, `set "noequals"`)
	opt = appOptions(t)
	opt.Values = "a: [unclosed"
	renderErr(t, opt, "values: ", "want a YAML map of Helm values")
	opt = appOptions(t)
	opt.Set = []string{"replicas=-1"}
	renderErr(t, opt, "schema", "replicas", "minimum")
	opt = appOptions(t)
	opt.ReleaseName = ""
	renderErr(t, opt, "no release name")
	opt.ReleaseName = "Not_Valid"
	renderErr(t, opt, `release-name "Not_Valid"`)
}

func TestHelmValuesFileSymlinkEscape(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	chart := filepath.Join(repo, "chart")
	writeChart(t, chart, "c", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n")
	mkfile(t, filepath.Join(tmp, "outside.yaml"), "name: stolen\n")
	must(t, os.Symlink("../outside.yaml", filepath.Join(repo, "prod.yaml")))
	opt := Options{Dir: chart, RepoRoot: repo, Helm: settings.Helm{ReleaseName: "r", ValuesFiles: []string{"../prod.yaml"}}}
	err := renderErr(t, opt, `values file "../prod.yaml"`, "outside the repository root", "symbolic link")
	if !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("not ErrOutsideRoot: %v", err)
	}
}

func writeChart(t *testing.T, dir, name, template string) {
	t.Helper()
	mkfile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: "+name+"\nversion: 0.1.0\n")
	mkfile(t, filepath.Join(dir, "values.yaml"), "name: x\n")
	mkfile(t, filepath.Join(dir, "templates", "t.yaml"), template)
}

func TestHelmChartSymlinkEscape(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	chart := filepath.Join(repo, "chart")
	writeChart(t, chart, "c", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  f: {{ .Files.Get \"files/secret\" | quote }}\n")
	mkfile(t, filepath.Join(tmp, "secret"), "s3cr3t")
	must(t, os.MkdirAll(filepath.Join(chart, "files"), 0o755))
	must(t, os.Symlink("../../../secret", filepath.Join(chart, "files", "secret")))
	err := renderErr(t, Options{Dir: chart, RepoRoot: repo, Helm: settings.Helm{ReleaseName: "r"}}, "files/secret", "outside the repository root")
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Error("secret leaked")
	}
	// A link that stays inside the repository is followed, as helm does.
	must(t, os.Remove(filepath.Join(chart, "files", "secret")))
	mkfile(t, filepath.Join(repo, "shared", "secret"), "shared-value")
	must(t, os.Symlink("../../shared/secret", filepath.Join(chart, "files", "secret")))
	objs := render(t, Options{Dir: chart, RepoRoot: repo, Helm: settings.Helm{ReleaseName: "r"}})
	if got := objs[0].Data["data"].(map[string]any)["f"]; got != "shared-value" {
		t.Errorf("f = %v", got)
	}
}

func TestHelmTemplateError(t *testing.T) {
	root := testRepo(t)
	err := renderErr(t, Options{Dir: filepath.Join(root, "charts", "broken"), RepoRoot: root, Helm: settings.Helm{ReleaseName: "r"}},
		"chart charts/broken", "broken/templates/bad.yaml:6", "nil pointer")
	t.Logf("template error reads:\n%v", err)

	tmp := t.TempDir()
	writeChart(t, tmp, "p", "a: {{ .Values.name\n")
	renderErr(t, Options{Dir: tmp, RepoRoot: tmp, Helm: settings.Helm{ReleaseName: "r"}}, "p/templates/t.yaml:1", "parse error")
	writeChart(t, tmp, "p", "{{ fail \"set .Values.x\" }}\n")
	renderErr(t, Options{Dir: tmp, RepoRoot: tmp, Helm: settings.Helm{ReleaseName: "r"}}, "p/templates/t.yaml:1", "set .Values.x")
	writeChart(t, tmp, "p", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n")
	renderErr(t, Options{Dir: tmp, RepoRoot: tmp, Helm: settings.Helm{ReleaseName: "r"}}, "YAML parse error on p/templates/t.yaml")
	writeChart(t, tmp, "p", "foo: bar\n")
	renderErr(t, Options{Dir: tmp, RepoRoot: tmp, Helm: settings.Helm{ReleaseName: "r"}}, "p/templates/t.yaml: document 1", "no apiVersion or kind")
}

func TestHelmMissingDependency(t *testing.T) {
	root := testRepo(t)
	err := renderErr(t, Options{Dir: filepath.Join(root, "charts", "nodeps"), RepoRoot: root, Helm: settings.Helm{ReleaseName: "r"}},
		"redis", "19.0.0", "charts/nodeps/charts/", "helm dependency build charts/nodeps", "commit the charts/ directory")
	if !errors.Is(err, ErrMissingDependency) {
		t.Errorf("not ErrMissingDependency: %v", err)
	}
	renderErr(t, Options{Dir: filepath.Join(root, "charts", "library"), RepoRoot: root, Helm: settings.Helm{ReleaseName: "r"}}, `type "library"`)
}

func TestHelmSchemaReferences(t *testing.T) {
	tmp := t.TempDir()
	writeChart(t, tmp, "s", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n")
	mkfile(t, filepath.Join(tmp, "values.schema.json"), `{"properties": {"name": {"$ref": "https://example.invalid/name.json"}}}`)
	err := renderErr(t, Options{Dir: tmp, RepoRoot: tmp, Helm: settings.Helm{ReleaseName: "r"}}, "https://example.invalid/name.json", "offline")
	if !errors.Is(err, ErrRemote) {
		t.Errorf("not ErrRemote: %v", err)
	}
	mkfile(t, filepath.Join(tmp, "values.schema.json"), `{"properties": {"name": {"$ref": "file:///etc/passwd"}}}`)
	renderErr(t, Options{Dir: tmp, RepoRoot: tmp, Helm: settings.Helm{ReleaseName: "r"}}, "/etc/passwd", "outside the repository root")
}

// A values file $REF/PATH is read from Refs[REF], and stays inside it: a
// chart outside the repository takes values files of the repository.
func TestHelmRefValuesFiles(t *testing.T) {
	refs := t.TempDir()
	if err := os.WriteFile(filepath.Join(refs, "prod.yaml"), []byte("config: {greeting: from-ref}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := appOptions(t)
	opt.Refs = map[string]string{"values": refs}
	opt.ValuesFiles = []string{"$values/prod.yaml"}
	cm := find(t, render(t, opt), "ConfigMap", "rel-app-config")
	if got := cm.Data["data"].(map[string]any)["greeting"]; got != "from-ref" {
		t.Errorf("greeting %v, want the $values file's", got)
	}
	opt.ValuesFiles = []string{"$values/../prod.yaml"}
	renderErr(t, opt, `values file "../prod.yaml" is outside the repository root`)
	opt.ValuesFiles = []string{"$values/none.yaml"}
	renderErr(t, opt, "relative to the root of the repository of ref values")
	opt.ValuesFiles = []string{"$other/prod.yaml"}
	renderErr(t, opt, `values file "$other/prod.yaml" not found`)
	// ignoreMissingValueFiles leaves out a $REF file that is not there too.
	opt.ValuesFiles, opt.IgnoreMissingValueFiles = []string{"$values/none.yaml", "$values/prod.yaml"}, true
	if cm := find(t, render(t, opt), "ConfigMap", "rel-app-config"); cm.Data["data"].(map[string]any)["greeting"] != "from-ref" {
		t.Errorf("with ignoreMissingValueFiles: %v", cm.Data)
	}
}
