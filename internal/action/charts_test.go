package action

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/chartrepotest"
	"github.com/cmp-defaults/cmp-defaults/internal/preview"
)

const thisRepo = "https://github.com/example/gitops.git"

// chartRepo serves podinfo 1.0.0 and 1.1.0, packaged by Helm.
func chartRepo(t *testing.T) *chartrepotest.Server {
	t.Helper()
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  greeting: {{ .Values.greeting | quote }}
  color: {{ .Values.color | default "none" | quote }}
  version: {{ .Chart.Version | quote }}
`
	files := map[string]string{"templates/cm.yaml": tmpl, "values-extra.yaml": "color: blue\n"}
	s, err := chartrepotest.New(chartrepotest.Chart("podinfo", "1.0.0", "greeting: hello\n", files),
		chartrepotest.Chart("podinfo", "1.1.0", "greeting: hello\n", files))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// writeTree writes files (path: text, $CHARTS replaced) into a new directory.
func writeTree(t *testing.T, charts string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "$CHARTS", charts)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func chartApp(name, revision, helm string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ` + name + `, namespace: argocd}
spec:
  destination: {server: https://kubernetes.default.svc, namespace: web}
  source:
    repoURL: $CHARTS
    chart: ` + name + `
    targetRevision: "` + revision + `"
    helm: ` + helm + `
`
}

const multiApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: multi, namespace: argocd}
spec:
  destination: {server: https://kubernetes.default.svc, namespace: web}
  sources:
    - repoURL: $CHARTS
      chart: podinfo
      targetRevision: 1.0.0
      helm: {valueFiles: [$values/envs/prod.yaml, values-extra.yaml]}
    - repoURL: ` + thisRepo + `
      ref: values
`

// remoteTrees are base and head of a repository whose podinfo app moves
// from chart version 1.0.0 to the constraint ~1.1, with a parameter, and
// whose multi app takes a values file of this repository ($values).
func remoteTrees(t *testing.T, charts string) (base, head string) {
	common := map[string]string{"apps/multi.yaml": multiApp, "envs/prod.yaml": "greeting: prod\n"}
	with := func(revision string) map[string]string {
		m := map[string]string{"apps/podinfo.yaml": chartApp("podinfo", revision, "{parameters: [{name: greeting, value: hi}]}")}
		for k, v := range common {
			m[k] = v
		}
		return m
	}
	return writeTree(t, charts, with("1.0.0")), writeTree(t, charts, with("~1.1"))
}

func previewDirs(t *testing.T, p *Preview, environ []string) (*preview.Report, error) {
	t.Helper()
	env := newEnv(t)
	env.Environ, env.WorkDir = environ, p.Head
	p.RepoURL = thisRepo
	res, err := p.Run(context.Background(), env)
	if err != nil {
		return nil, err
	}
	return res.Report.(*preview.Report), nil
}

// With --allow-remote-charts, charts of a Helm repository render with
// the Application's settings; the version change shows as a change, and
// --chart-cache keeps the archives for the next run.
func TestPreviewRemoteCharts(t *testing.T) {
	s := chartRepo(t)
	base, head := remoteTrees(t, s.URL)
	out, cache := t.TempDir(), t.TempDir()
	rep, err := previewDirs(t, &Preview{Base: base, Head: head, AllowRemoteCharts: true, ChartCache: cache, OutputDir: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pod, multi := findApp(rep, "podinfo"), findApp(rep, "multi")
	if pod == nil || pod.Change != preview.Modified || pod.PredictedSync != preview.Synced || len(pod.Resources) != 1 ||
		!strings.Contains(pod.Resources[0].Diff, `+  version: 1.1.0`) {
		t.Errorf("podinfo: %+v", pod)
	}
	if multi == nil || multi.Change != preview.Unchanged || multi.PredictedSync != preview.Synced {
		t.Errorf("multi: %+v", multi)
	}

	for f, want := range map[string][]string{
		"head/argocd_podinfo.yaml": {"greeting: hi", "version: 1.1.0"},
		"base/argocd_podinfo.yaml": {"greeting: hi", "version: 1.0.0"},
		"head/argocd_multi.yaml":   {"greeting: prod", "color: blue", "name: multi"},
	} {
		b, err := os.ReadFile(filepath.Join(out, f))
		for _, w := range want {
			if err != nil || !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q (%v):\n%s", f, w, err, b)
			}
		}
	}
	// 1.0.0 is fetched once for both revisions and both apps.
	if n, i := s.Archives.Load(), s.Indexes.Load(); n != 2 || i != 1 {
		t.Errorf("%d archive and %d index requests, want 2 and 1", n, i)
	}
	again := &Preview{Base: base, Head: head, AllowRemoteCharts: true, ChartCache: cache}
	if _, err := previewDirs(t, again, nil); err != nil {
		t.Fatal(err)
	}
	if again.reused != 1 {
		t.Errorf("%d Applications rendered once for both revisions, want 1: multi, the same chart and values at both", again.reused)
	}
	if n := s.Archives.Load(); n != 2 {
		t.Errorf("the second run with the same --chart-cache asked for %d archives more", n-2)
	}
	// Its $values file changed: rendered again, and modified.
	changed := writeTree(t, s.URL, map[string]string{"apps/multi.yaml": multiApp, "envs/prod.yaml": "greeting: changed\n"})
	p := &Preview{Base: base, Head: changed, AllowRemoteCharts: true, ChartCache: cache}
	if rep, err = previewDirs(t, p, nil); err != nil {
		t.Fatal(err)
	}
	if multi := findApp(rep, "multi"); p.reused != 0 || multi == nil || multi.Change != preview.Modified {
		t.Errorf("multi with another $values file: reused %d, %+v", p.reused, multi)
	}
}

// Without the flag nothing is fetched, and the reason names it.
func TestPreviewRemoteChartsOff(t *testing.T) {
	s := chartRepo(t)
	base, head := remoteTrees(t, s.URL)
	rep, err := previewDirs(t, &Preview{Base: base, Head: head}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"podinfo", "multi"} {
		a := findApp(rep, name)
		if a == nil || a.PredictedSync != preview.Unknown || len(a.Reasons) == 0 || !strings.Contains(a.Reasons[0], "--allow-remote-charts") {
			t.Errorf("%s: %+v", name, a)
		}
	}
	if s.Archives.Load()+s.Indexes.Load() != 0 {
		t.Error("a request without --allow-remote-charts")
	}
	if _, err := previewDirs(t, &Preview{Base: base, Head: head, ChartCache: t.TempDir()}, nil); err == nil || !strings.Contains(err.Error(), "--chart-cache") {
		t.Errorf("--chart-cache without --allow-remote-charts: %v", err)
	}
}

// A chart that cannot be had fails the run, naming the file, the field,
// the repository, the chart and its version, and why.
func TestPreviewRemoteChartErrors(t *testing.T) {
	s := chartRepo(t)
	if err := s.AddMissing("gone", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddEndless("huge", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"gone":    "404 Not Found",
		"huge":    "more than the 32 MiB allowed",
		"nope":    "index.yaml has no chart nope",
		"podinfo": "no version in the repository's index.yaml matches",
	} {
		dir := writeTree(t, s.URL, map[string]string{"apps/app.yaml": chartApp(name, map[bool]string{true: "9.9.9", false: "1.0.0"}[name == "podinfo"], "{}")})
		_, err := previewDirs(t, &Preview{Base: dir, Head: dir, AllowRemoteCharts: true}, nil)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "apps/app.yaml") ||
			!strings.Contains(err.Error(), "spec.source: chart "+name) || !strings.Contains(err.Error(), s.URL) {
			t.Errorf("%s: got %v, want an error with %q", name, err, want)
		}
	}
}

// Requests go through the caller's proxy (a worker's own environment
// points at none that works), and other schemes are not fetched.
func TestPreviewRemoteChartsProxy(t *testing.T) {
	s := chartRepo(t)
	dir := writeTree(t, "http://charts.example.test/", map[string]string{
		"apps/podinfo.yaml": chartApp("podinfo", "1.0.0", "{}"),
		"apps/ssh.yaml":     strings.ReplaceAll(chartApp("ssh", "1.0.0", "{}"), "$CHARTS", "ssh://git@example.test/charts"),
	})
	rep, err := previewDirs(t, &Preview{Base: dir, Head: dir, AllowRemoteCharts: true}, []string{"HTTP_PROXY=" + s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if a := findApp(rep, "podinfo"); a == nil || a.PredictedSync != preview.Synced || s.Archives.Load() != 1 {
		t.Errorf("podinfo through the proxy: %+v", a)
	}
	if a := findApp(rep, "ssh"); a == nil || a.PredictedSync != preview.Unknown || len(a.Reasons) == 0 || !strings.Contains(a.Reasons[0], "neither a Helm repository") {
		t.Errorf("ssh: %+v", a)
	}
}

// A chart of an OCI registry (oci://, or no scheme), pushed by Helm's
// registry client to a registry on loopback: an exact tag, then the
// newest tag matching a constraint; the cache saves the second run's pulls.
func TestPreviewOCICharts(t *testing.T) {
	files := map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}'}\ndata: {greeting: '{{ .Values.greeting }}', version: '{{ .Chart.Version }}'}\n"}
	reg, err := chartrepotest.NewRegistry(chartrepotest.Chart("podinfo", "1.0.0", "greeting: hello\n", files),
		chartrepotest.Chart("podinfo", "1.1.0", "greeting: hello\n", files), chartrepotest.Chart("podinfo", "2.0.0", "greeting: hello\n", files))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	app := func(revision string) map[string]string {
		return map[string]string{"apps/podinfo.yaml": chartApp("podinfo", revision, "{parameters: [{name: greeting, value: hi}]}")}
	}
	base, head := writeTree(t, "oci://"+reg.Host+"/charts", app("1.0.0")), writeTree(t, reg.Host+"/charts/", app("~1.1"))
	out, cache := t.TempDir(), t.TempDir()
	rep, err := previewDirs(t, &Preview{Base: base, Head: head, AllowRemoteCharts: true, ChartCache: cache, OutputDir: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := findApp(rep, "podinfo"); a == nil || a.Change != preview.Modified || len(a.Resources) != 1 || !strings.Contains(a.Resources[0].Diff, "+  version: 1.1.0") {
		t.Errorf("podinfo: %+v", a)
	}
	if b, err := os.ReadFile(filepath.Join(out, "base", "argocd_podinfo.yaml")); err != nil || !strings.Contains(string(b), "greeting: hi") {
		t.Errorf("base/argocd_podinfo.yaml lacks the parameter (%v):\n%s", err, b)
	}
	if n := reg.Blobs.Load(); n != 2 {
		t.Errorf("%d blob requests, want 2 (one chart layer per version)", n)
	}
	if _, err := previewDirs(t, &Preview{Base: base, Head: head, AllowRemoteCharts: true, ChartCache: cache}, nil); err != nil {
		t.Fatal(err)
	}
	if n := reg.Blobs.Load(); n != 2 {
		t.Errorf("the second run with the same --chart-cache asked for %d blobs more", n-2)
	}
	missing := writeTree(t, reg.Host+"/charts", app("9.9.9"))
	if _, err := previewDirs(t, &Preview{Base: missing, Head: missing, AllowRemoteCharts: true}, nil); err == nil ||
		!strings.Contains(err.Error(), "spec.source: chart podinfo version \"9.9.9\" of "+reg.Host+"/charts") || !strings.Contains(err.Error(), "9.9.9: not found") {
		t.Errorf("a missing tag: %v", err)
	}
}

// A repository or registry that wants credentials gets none, and the
// error says so.
func TestPreviewRemoteChartsPrivate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	for _, repoURL := range []string{srv.URL, "oci://" + strings.TrimPrefix(srv.URL, "http://") + "/charts"} {
		dir := writeTree(t, repoURL, map[string]string{"apps/app.yaml": chartApp("podinfo", "1.0.0", "{}")})
		_, err := previewDirs(t, &Preview{Base: dir, Head: dir, AllowRemoteCharts: true}, nil)
		if err == nil || !strings.Contains(err.Error(), "wants credentials, and preview sends none") {
			t.Errorf("%s: %v", repoURL, err)
		}
	}
}

// Each request is under the run's --timeout, and redirects are bounded.
func TestPreviewRemoteChartsBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/loop") {
			http.Redirect(w, r, "/loop/index.yaml", http.StatusFound)
			return
		}
		<-r.Context().Done() // never answers
	}))
	t.Cleanup(srv.Close)
	for repoURL, want := range map[string]string{srv.URL + "/loop": "more than 5 redirects", srv.URL + "/hang": "gave up after 1s"} {
		dir := writeTree(t, repoURL, map[string]string{"apps/app.yaml": chartApp("podinfo", "1.0.0", "{}")})
		_, err := previewDirs(t, &Preview{Base: dir, Head: dir, AllowRemoteCharts: true, Rendering: Rendering{Timeout: time.Second}}, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", repoURL, err, want)
		}
	}
}
