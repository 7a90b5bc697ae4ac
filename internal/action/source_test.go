package action

import (
	"path/filepath"
	"testing"

	"github.com/cmp-defaults/cmp-defaults/internal/argocd"
	"github.com/cmp-defaults/cmp-defaults/internal/cluster"
	"github.com/cmp-defaults/cmp-defaults/internal/cmpenv"
	"github.com/cmp-defaults/cmp-defaults/internal/render"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Every command builds the render options of a source directory the same
// way: the same repository root, input limit and default timeout.
func TestSourceOptionsAgree(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "helm")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Sidecar: cmpenv.Sidecar{MaxInput: 12345}}
	fromDir, err := render.NewOptions(dir, "", env.Sidecar.MaxInput, env.Sidecar.Limits, settings.Helm{}, settings.Directory{})
	if err != nil {
		t.Fatal(err)
	}
	if fromDir.RepoRoot != repo {
		t.Fatalf("repository root %s, want %s (the nearest parent with .git)", fromDir.RepoRoot, repo)
	}
	checked, err := (&ClusterSource{Helm: settings.Helm{APIVersions: []string{"v1"}}}).SourceOptions(env, dir, "ns", &cluster.Client{Version: "v1.34.0"})
	if err != nil {
		t.Fatal(err)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, d := argocd.Settings(&argocd.Source{}, "")
	audited, err := (&Audit{}).sourceOptions(env, absDir, repo, h, d)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	generated, _, err := GenerateJob([]string{"ARGOCD_APP_NAME=helm", "ARGOCD_APP_SOURCE_PATH=examples/helm", "ARGOCD_ENV_CMP_DEFAULTS_OPERATORS=external-secrets@2.5.0"}, abs, env.Sidecar)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]render.Options{"check": checked, "audit": audited, "generate": generated.Source} {
		if got.Dir != fromDir.Dir || got.RepoRoot != repo || got.ReleaseName != "helm" {
			t.Errorf("%s: dir %s, repository root %s, release %s; want %s, %s, helm", name, got.Dir, got.RepoRoot, got.ReleaseName, fromDir.Dir, repo)
		}
		if got.MaxBytes != env.Sidecar.MaxInput {
			t.Errorf("%s: input limit %d, want %d", name, got.MaxBytes, env.Sidecar.MaxInput)
		}
		if got.Timeout != settings.DefaultTimeout {
			t.Errorf("%s: timeout %s, want %s", name, got.Timeout, settings.DefaultTimeout)
		}
	}
}
