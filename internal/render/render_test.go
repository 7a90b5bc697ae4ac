package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// testRepo is the repository root of the test sources.
func testRepo(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("testdata/repo")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func render(t *testing.T, opt Options) []manifest.Object {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	objs, err := Render(ctx, opt)
	if err != nil {
		t.Fatalf("Render(%s): %v", opt.Dir, err)
	}
	return objs
}

func renderErr(t *testing.T, opt Options, wants ...string) error {
	t.Helper()
	objs, err := Render(context.Background(), opt)
	if err == nil {
		t.Fatalf("Render(%s) succeeded with %d objects, want an error", opt.Dir, len(objs))
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q:\n%v", w, err)
		}
	}
	return err
}

// ids lists "Kind name" of each object, in order.
func ids(objs []manifest.Object) []string {
	var out []string
	for _, o := range objs {
		k, _ := o.Data["kind"].(string)
		md, _ := o.Data["metadata"].(map[string]any)
		n, _ := md["name"].(string)
		out = append(out, k+" "+n)
	}
	return out
}

func find(t *testing.T, objs []manifest.Object, kind, name string) manifest.Object {
	t.Helper()
	for _, o := range objs {
		md, _ := o.Data["metadata"].(map[string]any)
		if o.Data["kind"] == kind && md["name"] == name {
			return o
		}
	}
	t.Fatalf("no %s %s in %v", kind, name, ids(objs))
	return manifest.Object{}
}

func TestDetect(t *testing.T) {
	root := testRepo(t)
	for dir, want := range map[string]Kind{
		"charts/app":              KindHelm,
		"kustomize/overlays/prod": KindKustomize,
		"plain":                   KindDirectory,
	} {
		got, err := Detect(filepath.Join(root, dir))
		if err != nil || got != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", dir, got, err, want)
		}
	}
	tmp := t.TempDir()
	for _, name := range KustomizationFiles {
		d := filepath.Join(tmp, name+"-dir")
		mkfile(t, filepath.Join(d, name), "resources: []\n")
		mkfile(t, filepath.Join(d, "Chart.yaml"), "name: x\n") // kustomize wins, as in Argo CD
		if got, _ := Detect(d); got != KindKustomize {
			t.Errorf("Detect with %s = %q, want kustomize", name, got)
		}
	}
	if _, err := Detect(filepath.Join(tmp, "missing")); err == nil {
		t.Error("Detect of a missing directory succeeded")
	}
}

func mkfile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDirectory(t *testing.T) {
	root := testRepo(t)
	objs := render(t, Options{Dir: filepath.Join(root, "plain"), RepoRoot: root})
	want := []string{
		"ConfigMap from-list-1", "ConfigMap from-list-2", // a-list.yaml, List flattened
		"Deployment web", "Service web", // b-deployment.yaml, two documents
		"ConfigMap from-json", // sub/c.json
		"ConfigMap deep",      // sub/deeper/d.yml
	}
	if got := ids(objs); !reflect.DeepEqual(got, want) {
		t.Fatalf("objects:\n got %v\nwant %v", got, want)
	}
	srcs := []string{}
	for _, o := range objs {
		srcs = append(srcs, o.Where())
	}
	wantSrc := []string{
		"a-list.yaml: document 1 (line 1)", "a-list.yaml: document 1 (line 1)",
		"b-deployment.yaml: document 1 (line 1)", "b-deployment.yaml: document 2 (line 8)",
		"sub/c.json: document 1 (line 1)", "sub/deeper/d.yml: document 1 (line 1)",
	}
	if !reflect.DeepEqual(srcs, wantSrc) {
		t.Errorf("sources:\n got %v\nwant %v", srcs, wantSrc)
	}
}

func TestDirectoryIncludeExclude(t *testing.T) {
	root := testRepo(t)
	dir := filepath.Join(root, "plain")
	for _, tc := range []struct {
		include, exclude string
		want             []string
	}{
		{"*.yaml", "", []string{"ConfigMap from-list-1", "ConfigMap from-list-2", "Deployment web", "Service web"}},
		{"", "sub/*", []string{"ConfigMap from-list-1", "ConfigMap from-list-2", "Deployment web", "Service web"}},
		{"{sub/c.json,b-*.yaml}", "", []string{"Deployment web", "Service web", "ConfigMap from-json"}},
		{"sub/**", "*.yml", []string{"ConfigMap from-json"}},
		{"*.json", "", []string{"ConfigMap from-json"}},
	} {
		got := ids(render(t, Options{Dir: dir, RepoRoot: root, Directory: settings.Directory{Include: tc.include, Exclude: tc.exclude}}))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("include %q exclude %q:\n got %v\nwant %v", tc.include, tc.exclude, got, tc.want)
		}
	}
	err := renderErr(t, Options{Dir: dir, RepoRoot: root, Directory: settings.Directory{Include: "*.toml"}}, "no manifest files", `include "*.toml"`)
	if !errors.Is(err, ErrNoSources) {
		t.Errorf("error is not ErrNoSources: %v", err)
	}
	renderErr(t, Options{Dir: dir, RepoRoot: root, Directory: settings.Directory{Include: "[a"}}, "include pattern", "not a valid glob")
}

func TestDirectoryEmpty(t *testing.T) {
	tmp := t.TempDir()
	mkfile(t, filepath.Join(tmp, "README.md"), "hello")
	mkfile(t, filepath.Join(tmp, ".hidden", "x.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	err := renderErr(t, Options{Dir: tmp, RepoRoot: tmp}, "no manifest files", tmp)
	if !errors.Is(err, ErrNoSources) {
		t.Errorf("error is not ErrNoSources: %v", err)
	}
	// A file that exists but holds no documents is not an error: zero objects.
	mkfile(t, filepath.Join(tmp, "empty.yaml"), "# nothing yet\n")
	if objs := render(t, Options{Dir: tmp, RepoRoot: tmp}); len(objs) != 0 {
		t.Errorf("got %v, want no objects", ids(objs))
	}
}

func TestDirectoryErrors(t *testing.T) {
	tmp := t.TempDir()
	mkfile(t, filepath.Join(tmp, "app", "bad.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n")
	renderErr(t, Options{Dir: filepath.Join(tmp, "app"), RepoRoot: tmp}, "bad.yaml", "malformed YAML", "line")
}

func TestDirectorySymlinks(t *testing.T) {
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\n"
	mkfile(t, filepath.Join(repo, "app", "a.yaml"), fmt.Sprintf(cm, "a"))
	mkfile(t, filepath.Join(repo, "common", "shared.yaml"), fmt.Sprintf(cm, "shared"))
	mkfile(t, filepath.Join(tmp, "secret.yaml"), fmt.Sprintf(cm, "outside"))
	app := filepath.Join(repo, "app")
	must(t, os.Symlink("../common/shared.yaml", filepath.Join(app, "link.yaml")))
	must(t, os.Symlink("../nowhere.yaml", filepath.Join(app, "dangling.yaml")))
	if got, want := ids(render(t, Options{Dir: app, RepoRoot: repo})), []string{"ConfigMap a", "ConfigMap shared"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	must(t, os.Symlink("../../secret.yaml", filepath.Join(app, "z-escape.yaml")))
	err := renderErr(t, Options{Dir: app, RepoRoot: repo}, "z-escape.yaml", "outside the repository root", filepath.Join(tmp, "secret.yaml"))
	if !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("error is not ErrOutsideRoot: %v", err)
	}
	// The source directory itself must be inside the root.
	renderErr(t, Options{Dir: tmp, RepoRoot: repo}, "outside the repository root")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestContextCancelled(t *testing.T) {
	root := testRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, dir := range []string{"plain", "charts/app", "kustomize/overlays/prod"} {
		_, err := Render(ctx, Options{Dir: filepath.Join(root, dir), RepoRoot: root, Helm: settings.Helm{ReleaseName: "x"}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", dir, err)
		}
	}
}

// The bundled examples all describe the same ExternalSecret.
func TestExamples(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ex := filepath.Join(repo, "examples")
	plain := render(t, Options{Dir: filepath.Join(ex, "plain"), RepoRoot: repo})
	if got, want := ids(plain), []string{"ConfigMap datadog-agent-config", "ExternalSecret datadog-api-key"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("plain: got %v, want %v", got, want)
	}
	want := find(t, plain, "ExternalSecret", "datadog-api-key").Data
	data := want["spec"].(map[string]any)["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("plain ExternalSecret has %d data items, want 3", len(data))
	}

	helm := render(t, Options{Dir: filepath.Join(ex, "helm"), RepoRoot: repo, Helm: settings.Helm{ReleaseName: "datadog-secrets", Namespace: "datadog"}})
	if got := find(t, helm, "ExternalSecret", "datadog-api-key").Data; !reflect.DeepEqual(got, want) {
		t.Errorf("helm example differs from plain:\n got %v\nwant %v", got, want)
	}
	prod := render(t, Options{Dir: filepath.Join(ex, "helm"), RepoRoot: repo, Helm: settings.Helm{ReleaseName: "datadog-secrets", Namespace: "datadog", ValuesFiles: []string{"values-prod.yaml"}}})
	spec := find(t, prod, "ExternalSecret", "datadog-api-key").Data["spec"].(map[string]any)
	if spec["refreshInterval"] != "15m" || spec["secretStoreRef"].(map[string]any)["name"] != "gcp-secret-store-prod" {
		t.Errorf("values-prod.yaml not applied: %v", spec)
	}

	kust := render(t, Options{Dir: filepath.Join(ex, "kustomize", "overlays", "prod"), RepoRoot: repo})
	if got := find(t, kust, "ExternalSecret", "datadog-api-key").Data; !reflect.DeepEqual(got, want) {
		t.Errorf("kustomize example differs from plain:\n got %v\nwant %v", got, want)
	}
	if !slices.Equal(ids(kust), []string{"ExternalSecret datadog-api-key"}) {
		t.Errorf("kustomize example: %v", ids(kust))
	}
}
