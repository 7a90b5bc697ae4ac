// Package helmparity checks that internal/render's Helm renders equal
// Helm 4's own `helm template --include-crds`, run in process. It is a
// package of its own so that the render package's tests and fuzz builds do
// not link Helm's install action and its client-go dependencies.
package helmparity_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	helmchart "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
	release "helm.sh/helm/v4/pkg/release/v1"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// testRepo is the render package's test repository.
func testRepo(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../testdata/repo")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// appOptions renders testdata chart "app" with capabilities that turn on its
// optional parts (as the render package's own tests do).
func appOptions(t *testing.T) render.Options {
	root := testRepo(t)
	return render.Options{Dir: filepath.Join(root, "charts", "app"), RepoRoot: root, Helm: settings.Helm{ReleaseName: "rel", Namespace: "team", KubeVersion: "1.34.0", APIVersions: []string{"monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor"}}}
}

func renderOK(t *testing.T, opt render.Options) []manifest.Object {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	objs, err := render.Render(ctx, opt)
	if err != nil {
		t.Fatalf("Render(%s): %v", opt.Dir, err)
	}
	return objs
}

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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// helmTemplateSDK renders opt the way `helm template --include-crds` does
// (Helm 4's pkg/cmd/template.go), in process with Helm's own install action:
// a client-only dry run that replaces any release of the name, with the
// values merged as the CLI merges --values (then the inline values as one more
// file), --set-json, --set, --set-string and --set-file, as Argo CD passes them.
func helmTemplateSDK(t *testing.T, opt render.Options) ([]manifest.Object, error) {
	t.Helper()
	cfg := action.NewConfiguration()
	cfg.SetLogger(slog.DiscardHandler)
	client := action.NewInstall(cfg)
	client.DryRunStrategy = action.DryRunClient
	client.Replace = true
	client.IncludeCRDs = true
	client.Timeout = 300 * time.Second
	client.ReleaseName = opt.ReleaseName
	client.Namespace = cmp.Or(opt.Namespace, "default")
	if opt.KubeVersion != "" {
		kv, err := common.ParseKubeVersion(opt.KubeVersion)
		if err != nil {
			return nil, fmt.Errorf("invalid kube version '%s': %w", opt.KubeVersion, err)
		}
		client.KubeVersion = kv
	}
	client.APIVersions = common.VersionSet(opt.APIVersions)
	client.SkipSchemaValidation = opt.SkipSchemaValidation

	valueOpts := values.Options{Values: opt.Set, StringValues: opt.SetString, JSONValues: opt.SetJSON}
	for _, kv := range opt.SetFile {
		if k, f, ok := strings.Cut(kv, "="); ok && !filepath.IsAbs(f) {
			kv = k + "=" + filepath.Join(opt.Dir, f)
		}
		valueOpts.FileValues = append(valueOpts.FileValues, kv)
	}
	for _, f := range opt.ValuesFiles {
		// The CLI runs in the chart directory: relative values files are read from there.
		if !filepath.IsAbs(f) {
			f = filepath.Join(opt.Dir, f)
		}
		valueOpts.ValueFiles = append(valueOpts.ValueFiles, f)
	}
	if opt.Values != "" {
		p := filepath.Join(t.TempDir(), "inline-values.yaml")
		must(t, os.WriteFile(p, []byte(opt.Values), 0o644))
		valueOpts.ValueFiles = append(valueOpts.ValueFiles, p)
	}
	vals, err := valueOpts.MergeValues(getter.Providers{})
	if err != nil {
		return nil, err
	}
	ch, err := loader.Load(opt.Dir)
	if err != nil {
		return nil, err
	}
	acc, err := helmchart.NewAccessor(ch)
	if err != nil {
		return nil, err
	}
	if typ := acc.MetadataAsMap()["Type"]; typ != "" && typ != "application" {
		return nil, fmt.Errorf("%s charts are not installable", typ)
	}
	if req := acc.MetaDependencies(); len(req) > 0 {
		if err := action.CheckDependencies(ch, req); err != nil {
			return nil, fmt.Errorf("an error occurred while checking for chart dependencies: %w", err)
		}
	}
	r, err := client.RunWithContext(context.Background(), ch, vals)
	if err != nil {
		return nil, err
	}
	rel, ok := r.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("unsupported release type: %T", r)
	}
	// The CLI's output: the manifest, then each hook with its source.
	var out bytes.Buffer
	fmt.Fprintln(&out, strings.TrimSpace(rel.Manifest))
	for _, h := range rel.Hooks {
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return manifest.Decode("helm template", out.Bytes())
}

// Render produces the same objects, in the same order, as Helm 4's
// `helm template --include-crds` with the same inputs.
func TestHelmMatchesHelmTemplate(t *testing.T) {
	root := testRepo(t)
	repo, _ := filepath.Abs("../../..")
	withKube := func(o render.Options) render.Options { o.KubeVersion = "1.33.2"; return o }
	cases := map[string]render.Options{
		"app":            appOptions(t),
		"app-no-apis":    func() render.Options { o := appOptions(t); o.APIVersions = nil; o.KubeVersion = "v1.30"; return o }(),
		"app-default-ns": func() render.Options { o := appOptions(t); o.Namespace = ""; return o }(),
		"app-values": func() render.Options {
			o := appOptions(t)
			o.ValuesFiles = []string{"values/prod.yaml", "../broken/values.yaml"}
			o.Values = "config:\n  count: 7\nextraObjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: extra}\n    data: {k: v}\n"
			o.Set = []string{"replicas=4", "optional.enabled=true", "second.port=7070", "image.tag=1.0"}
			o.SetString = []string{"config.ratio=0.75", "config.greeting=123"}
			return o
		}(),
		"example-helm":      withKube(render.Options{Dir: filepath.Join(repo, "examples", "helm"), RepoRoot: repo, Helm: settings.Helm{ReleaseName: "datadog-secrets", Namespace: "datadog"}}),
		"example-helm-prod": withKube(render.Options{Dir: filepath.Join(repo, "examples", "helm"), RepoRoot: repo, Helm: settings.Helm{ReleaseName: "datadog-secrets", Namespace: "datadog", ValuesFiles: []string{"values-prod.yaml"}}}),
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		opt := cases[name]
		t.Run(name, func(t *testing.T) {
			want, err := helmTemplateSDK(t, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := renderOK(t, opt)
			compareObjects(t, got, want)
		})
	}
	// Failures agree too.
	t.Run("broken", func(t *testing.T) {
		opt := render.Options{Dir: filepath.Join(root, "charts", "broken"), RepoRoot: root, Helm: settings.Helm{ReleaseName: "r", KubeVersion: "1.30"}}
		_, herr := helmTemplateSDK(t, opt)
		_, err := render.Render(context.Background(), opt)
		if herr == nil || err == nil {
			t.Fatalf("helm error %v, render error %v; want both to fail", herr, err)
		}
	})
}

func compareObjects(t *testing.T, got, want []manifest.Object) {
	t.Helper()
	if !reflect.DeepEqual(ids(got), ids(want)) {
		t.Fatalf("objects differ from helm template:\n got %q\nwant %q", ids(got), ids(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i].Data, want[i].Data) {
			t.Errorf("object %d (%s) differs from helm template:\n got %v\nwant %v", i, ids(got)[i], got[i].Data, want[i].Data)
		}
	}
}
