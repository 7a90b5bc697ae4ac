package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/preview"
)

var update = flag.Bool("update", false, "rewrite the expected Markdown in testdata/preview/*.md")

// previewRepo is a git repository with two commits: testdata/preview/base,
// then head's files over it, without the files head/removed.txt lists.
// Fixed dates and names make the commits the same on every run.
func previewRepo(t *testing.T) (dir string, env []string) {
	t.Helper()
	dir = t.TempDir()
	env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "preview", "base"))); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	git("remote", "add", "origin", "https://github.com/example/gitops.git")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	head := filepath.Join("testdata", "preview", "head")
	err := filepath.WalkDir(head, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "removed.txt" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(head, p)
		to := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	removed, err := os.ReadFile(filepath.Join(head, "removed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(removed)) {
		git("rm", "-q", f)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "head")
	return dir, env
}

func runPreview(t *testing.T, p *Preview, dir string, environ []string) (*preview.Report, *Result, *Env) {
	t.Helper()
	env := newEnv(t)
	env.Environ, env.WorkDir = environ, dir
	res, err := p.Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	return res.Report.(*preview.Report), res, env
}

// The test repository's pull request, previewed from git revisions: each
// Application with its change, predicted sync status and flags.
func TestPreview(t *testing.T) {
	dir, environ := previewRepo(t)
	out := t.TempDir()
	p := &Preview{Base: "HEAD~1", Head: "HEAD", Operators: Operators{Refs: []string{"cloudnative-pg@1.27.0"}}, OutputDir: out}
	rep, res, _ := runPreview(t, p, dir, environ)
	if !res.Found {
		t.Error("a preview with changes is not Found (exit 3)")
	}
	// Rendered once for both revisions: team, whose Application and files
	// are the same at both (the others changed, or are Kustomize sources).
	if p.reused != 1 {
		t.Errorf("%d Applications rendered once for both revisions, want 1 (team)", p.reused)
	}
	type want struct {
		change, sync, parent string
		resources            []string // kind name: change [flags]
	}
	wants := map[string]want{
		"argocd/root":     {"modified", "Synced", "", []string{"Application api: modified", "Application db: added", "Application old: removed prune=manual"}},
		"argocd/team":     {"unchanged", "Synced", "argocd/root", nil},
		"argocd/plain":    {"modified", "Synced", "argocd/team", []string{"ConfigMap legacy: removed prune=automatic", "ConfigMap settings: modified", "Secret token: modified redacted", "Deployment shop: modified immutable=.spec.selector", "Job migrate: modified hook=PreSync"}},
		"argocd/web":      {"modified", "Synced", "argocd/root", []string{"Deployment web: modified"}},
		"argocd/multi":    {"modified", "Synced", "argocd/root", []string{"Deployment shop-web: modified"}},
		"argocd/api":      {"modified", "Synced", "argocd/root", []string{"LimitRange api: added", "Service api: modified immutable=.spec.clusterIP"}},
		"argocd/secrets":  {"modified", "Synced", "argocd/root", []string{"ExternalSecret db-password: modified hidden=.spec.refreshInterval"}},
		"argocd/db":       {"added", "OutOfSync", "argocd/root", []string{"Cluster pg: added"}},
		"argocd/old":      {"removed", "", "argocd/root", nil},
		"argocd/clusters": {"not-evaluated", "Unknown", "argocd/root", nil},
		"argocd/tools":    {"modified", "Synced", "argocd/root", []string{"ConfigMap tools-config: modified"}},
	}
	seen := map[string]bool{}
	for _, a := range rep.Apps {
		k := a.Namespace + "/" + a.Name
		seen[k] = true
		w, ok := wants[k]
		if !ok {
			t.Errorf("unexpected app %s", k)
			continue
		}
		var got []string
		for _, r := range a.Resources {
			s := r.Kind + " " + r.Name + ": " + string(r.Change)
			if r.Prune != "" {
				s += " prune=" + r.Prune
			}
			if r.Redacted {
				s += " redacted"
			}
			for _, i := range r.Immutable {
				s += " immutable=" + i
			}
			if r.Hook != "" {
				s += " hook=" + r.Hook
			}
			for _, h := range r.Hidden {
				s += " hidden=" + h.Path
			}
			got = append(got, s)
		}
		if string(a.Change) != w.change || string(a.PredictedSync) != w.sync || a.Parent != w.parent || !sameSet(got, w.resources) {
			t.Errorf("%s: got %s, %s, parent %q, resources %q\nwant %s, %s, parent %q, resources %q", k, a.Change, a.PredictedSync, a.Parent, got, w.change, w.sync, w.parent, w.resources)
		}
	}
	for k := range wants {
		if !seen[k] {
			t.Errorf("app %s is missing from the report", k)
		}
	}
	// The drift names CloudNativePG's defaults the db app neither fills nor ignores.
	db := findApp(rep, "db")
	if db == nil || !slices.ContainsFunc(db.Drift, func(f preview.Field) bool { return f.Path == ".spec.logLevel" && f.Value == "info" }) {
		t.Errorf("db's drift lacks CloudNativePG's logLevel default: %+v", db)
	}
	// web's .argocd-source-web.yaml overrides its Helm parameter, as the
	// repo-server merges it.
	if web := findApp(rep, "web"); web == nil || len(web.Resources) != 1 || !strings.Contains(web.Resources[0].Diff, "+      - image: web:3.0") {
		t.Errorf("web's source override is not applied: %+v", web)
	}
	// api's kustomize.commonLabels, applied as Argo CD's kustomize edit does.
	if api := findApp(rep, "api"); api == nil || len(api.Resources) != 2 || !strings.Contains(api.Resources[1].Diff, "+    team: api") {
		t.Errorf("api's kustomize settings are not applied: %+v", api)
	}
	// multi's values file comes from its ref source ($values/...), and web's
	// file:// dependency renders with it.
	if m := findApp(rep, "multi"); m == nil || len(m.Resources) != 1 || !strings.Contains(m.Resources[0].Diff, "+  replicas: 5") {
		t.Errorf("multi's $values file is not applied: %+v", m)
	}
	// A Secret's values appear nowhere: not in the report, not in the manifests.
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"stdout": js.Bytes()}
	_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files[p], _ = os.ReadFile(p)
		}
		return nil
	})
	for _, f := range []string{"report.json", "comment-1.md", filepath.Join("head", "argocd_plain.yaml"), filepath.Join("base", "argocd_old.yaml")} {
		if files[filepath.Join(out, f)] == nil {
			t.Errorf("--output-dir lacks %s", f)
		}
	}
	// web-db is gated on .Capabilities.APIVersions having CloudNativePG's
	// Cluster, which --operator cloudnative-pg@1.27.0 serves.
	for _, fw := range [][2]string{{"argocd_web.yaml", "name: web-common"}, {"argocd_multi.yaml", "owner: shop"}, {"argocd_web.yaml", "name: web-db"}} {
		if !bytes.Contains(files[filepath.Join(out, "head", fw[0])], []byte(fw[1])) {
			t.Errorf("head/%s lacks %q", fw[0], fw[1])
		}
	}
	// tools: its parameter with $ARGOCD_APP_*, its file parameter's text, values-prod.yaml without the missing
	// values file, its own release namespace and kube version; no CRDs, no
	// test hooks.
	tools := string(files[filepath.Join(out, "head", "argocd_tools.yaml")])
	build := "build: " + rep.Head.Commit[:7] + "-tools-$HOME-" // Argo CD's build environment substituted
	for _, want := range []string{"namespace: tools-system", "config: |\n    retries = 5", "level: warn", "kube: v1.33.0", build} {
		if !strings.Contains(tools, want) {
			t.Errorf("head/argocd_tools.yaml lacks %q:\n%s", want, tools)
		}
	}
	if strings.Contains(tools, "CustomResourceDefinition") || strings.Contains(tools, "kind: Pod") {
		t.Errorf("head/argocd_tools.yaml holds the chart's CRD or test hook, which skipCrds and skipTests leave out:\n%s", tools)
	}
	for name, b := range files {
		if bytes.Contains(b, []byte("secret-value")) {
			t.Errorf("%s shows a Secret's value", name)
		}
	}
	golden(t, filepath.Join("testdata", "preview", "comment.md"), []byte(strings.Join(rep.Markdown(), "")))
}

// Two directories preview as the two revisions do, without git; --fail-on
// outofsync fails after writing the reports.
func TestPreviewDirectoriesFailOn(t *testing.T) {
	dir, environ := previewRepo(t)
	base := t.TempDir()
	cmd := exec.Command("git", "-C", dir, "worktree", "add", "-q", "--detach", filepath.Join(base, "tree"), "HEAD~1")
	cmd.Env = environ
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out := t.TempDir()
	p := &Preview{Base: filepath.Join(base, "tree"), Head: dir, Operators: Operators{Refs: []string{"cloudnative-pg@1.27.0"}}, FailOn: []string{"outofsync"}, OutputDir: out}
	env := newEnv(t)
	env.Environ, env.WorkDir = []string{}, dir // no PATH: git is not needed
	_, err := p.Run(context.Background(), env)
	if err == nil || !strings.Contains(err.Error(), "1 Applications are predicted OutOfSync (--fail-on outofsync)") {
		t.Fatalf("got %v, want the --fail-on error", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep preview.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.APIVersion != preview.APIVersion || rep.Summary.OutOfSync != 1 || rep.Summary.Changed != 9 {
		t.Errorf("report.json: %+v", rep.Summary)
	}
}

// Without --operator, the new CloudNativePG Cluster's admission is unknown,
// and an unknown revision is a usage error naming it.
func TestPreviewUnknown(t *testing.T) {
	dir, environ := previewRepo(t)
	out := t.TempDir()
	rep, _, _ := runPreview(t, &Preview{Base: "HEAD~1", Head: "HEAD", OutputDir: out}, dir, environ)
	if b, err := os.ReadFile(filepath.Join(out, "head", "argocd_web.yaml")); err != nil || bytes.Contains(b, []byte("name: web-db")) {
		t.Errorf("web-db rendered though no release serves CloudNativePG's Cluster (%v)", err)
	}
	db := findApp(rep, "db")
	if db == nil || db.PredictedSync != preview.Unknown || len(db.Reasons) != 1 || !strings.Contains(db.Reasons[0], "give --operator cloudnative-pg@VERSION") {
		t.Errorf("db without --operator: %+v", db)
	}
	env := newEnv(t)
	env.Environ, env.WorkDir = environ, dir
	_, err := (&Preview{Base: "no-such-rev", Head: "HEAD"}).Run(context.Background(), env)
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no-such-rev is neither a directory nor a revision") {
		t.Errorf("unknown revision: %v", err)
	}
}

// --kube-version is the clusters' version for charts that set none (an
// Application's helm.kubeVersion wins, as in Argo CD); one .Capabilities
// cannot hold is a usage error.
func TestPreviewKubeVersion(t *testing.T) {
	dir, environ := previewRepo(t)
	out := t.TempDir()
	runPreview(t, &Preview{Base: "HEAD~1", Head: "HEAD", KubeVersion: "1.31.4", OutputDir: out}, dir, environ)
	for file, want := range map[string]string{"argocd_web.yaml": "kube: v1.31.4", "argocd_tools.yaml": "kube: v1.33.0"} {
		if b, err := os.ReadFile(filepath.Join(out, "head", file)); err != nil || !bytes.Contains(b, []byte(want)) {
			t.Errorf("head/%s lacks %q (%v):\n%s", file, want, err, b)
		}
	}
	env := newEnv(t)
	env.Environ, env.WorkDir = environ, dir
	_, err := (&Preview{Base: "HEAD~1", Head: "HEAD", KubeVersion: "one"}).Run(context.Background(), env)
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--kube-version") {
		t.Errorf("--kube-version one: %v", err)
	}
}

// A kube version as a managed cluster reports it (a vendor's suffix) is
// read as Argo CD reads it, for --kube-version and an Application's
// helm.kubeVersion alike: v1.31.4-eks-1a2b3c4 is v1.31.4 in .Capabilities.
func TestPreviewKubeVersionSuffix(t *testing.T) {
	dir, environ := previewRepo(t)
	out := t.TempDir()
	runPreview(t, &Preview{Base: "HEAD~1", Head: "HEAD", KubeVersion: "v1.31.4-eks-1a2b3c4", OutputDir: out}, dir, environ)
	if b, err := os.ReadFile(filepath.Join(out, "head", "argocd_web.yaml")); err != nil || !bytes.Contains(b, []byte("kube: v1.31.4\n")) {
		t.Errorf("head/argocd_web.yaml lacks kube: v1.31.4 (%v):\n%s", err, b)
	}
	for v, want := range map[string]string{"v1.33.0+k3s1": "1.33.0", "1.33.2-gke.100": "1.33.2", "1.33": "1.33", "1": "", "one": ""} {
		h, _, err := (&Audit{kubeVersion: "1.31.4"}).settings(&argocd.Source{KubeVersion: v})
		if want == "" && err == nil || want != "" && (err != nil || h.KubeVersion != want) {
			t.Errorf("helm.kubeVersion %q: %q, %v; want %q", v, h.KubeVersion, err, want)
		}
	}
}

func findApp(rep *preview.Report, name string) *preview.App {
	for _, a := range rep.Apps {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// golden compares got with the file, or rewrites it with -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -run %s -update rewrites it); got:\n%s", file, t.Name(), got)
	}
}
